"""No import cycle in server/ or client_cli/, counting every import: at the top, inside
functions and under TYPE_CHECKING alike (import-linter's layers see only some of them).

The graph comes from each module's syntax tree: `import a.b` and `from a import b` point
at module a.b when it exists, else at a. KNOWN_CYCLES lists the cycles still to break;
it can only shrink: a listed cycle that no longer exists fails the test too, so whoever
breaks one deletes its line."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("server", "client_cli")

KNOWN_CYCLES: set[frozenset[str]] = set()


def module_names() -> dict[str, Path]:
    """Every module of the packages, by its dotted name (a package by its own)."""
    found: dict[str, Path] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def imported(name: str, path: Path, known: dict[str, Path]) -> Iterator[str]:
    """The modules of `known` that module `name` (at `path`) imports, anywhere in it."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            targets = [f"{base}.{alias.name}" for alias in node.names]
            targets = [t if t in known else base for t in targets]
        else:
            continue
        for target in targets:
            while target and target not in known:  # `import a.b.c` of a name inside a.b
                target = target.rpartition(".")[0]
            if target and target != name:
                yield target


def import_graph() -> dict[str, set[str]]:
    known = module_names()
    return {name: set(imported(name, path, known)) for name, path in known.items()}


def cycles(graph: dict[str, set[str]]) -> set[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: set[frozenset[str]] = set()

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                found.add(frozenset(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_graph_sees_imports_inside_functions_and_type_checking(tmp_path: Path) -> None:
    """Every kind of import is an edge, not just those at the top of a module."""
    module = tmp_path / "m.py"
    module.write_text(
        "from typing import TYPE_CHECKING\n"
        "import pkg.a\n"
        "from pkg import b\n"
        "from .c import name_in_c\n"
        "if TYPE_CHECKING:\n"
        "    from pkg.d import Thing\n"
        "def f() -> None:\n"
        "    from pkg import e\n"
        "    import pkg.f.name_in_f\n",
        encoding="utf-8",
    )
    known = {f"pkg.{n}": module for n in "abcdef"} | {"pkg": module}
    assert set(imported("pkg.m", module, known)) == {f"pkg.{n}" for n in "abcdef"}
    assert len(import_graph()) > 100  # the walk finds the packages' modules


def test_the_cycle_finder_finds_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == {frozenset({"a", "b", "c"})}


def test_no_import_cycle_but_the_known_ones_which_only_shrink() -> None:
    found = cycles(import_graph())
    new = found - KNOWN_CYCLES
    gone = KNOWN_CYCLES - found
    assert not new, f"import cycles: {[sorted(c) for c in new]}"
    assert not gone, f"broken cycles: delete them from KNOWN_CYCLES: {[sorted(c) for c in gone]}"
