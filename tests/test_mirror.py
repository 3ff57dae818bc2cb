"""Tests mirror the modules that hold logic (issue 34):
- server/<package>/<module>.py has its tests in tests/<package>/test_<module>.py;
- client_cli/<path>/<module>.py has its tests in tests/client/<path>/test_<module>.py
  (client_cli/connection.py → tests/client/test_connection.py,
  client_cli/commands/operator.py → tests/client/commands/test_operator.py,
  client_cli/tui/app.py → tests/client/tui/test_app.py).
`__init__.py` and the entry points (`__main__.py`) are left out, and so are server/'s own
top-level modules (client_cli/'s are in: it is one package).

A module holds logic when it defines a function or method with a body (not only a
docstring, `...` or `pass`). UNMIRRORED and UNMIRRORED_CLIENT list those still without a
test file of their name; they can only shrink: a listed module that has its file now (or
is gone) fails the test too, so whoever writes one deletes its line."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

UNMIRRORED: set[str] = set()

UNMIRRORED_CLIENT: set[str] = set()


def has_logic(path: Path) -> bool:
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                body = body[1:]  # its docstring
            if any(not isinstance(s, ast.Pass | ast.Expr) or not _ellipsis(s) for s in body):
                return True
    return False


def _ellipsis(s: ast.stmt) -> bool:
    return isinstance(s, ast.Pass) or (
        isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant) and s.value.value is ...
    )


def mirror_of(module: Path) -> Path:
    """Where the tests of server/<package>/<module>.py live."""
    rel = module.relative_to(ROOT / "server")
    return ROOT / "tests" / rel.parent / f"test_{rel.stem}.py"


def client_mirror_of(module: Path) -> Path:
    """Where the tests of client_cli/<path>/<module>.py live."""
    rel = module.relative_to(ROOT / "client_cli")
    return ROOT / "tests" / "client" / rel.parent / f"test_{rel.stem}.py"


def _with_logic(top: Path, *, top_level: bool) -> list[Path]:
    return [
        p
        for p in sorted(top.rglob("*.py"))
        if (top_level or p.parent != top)
        and p.name not in ("__init__.py", "__main__.py")
        and has_logic(p)
    ]


def modules_with_logic() -> list[Path]:
    return _with_logic(ROOT / "server", top_level=False)


def client_modules_with_logic() -> list[Path]:
    return _with_logic(ROOT / "client_cli", top_level=True)


def unmirrored() -> set[str]:
    return {str(p.relative_to(ROOT)) for p in modules_with_logic() if not mirror_of(p).is_file()}


def client_unmirrored() -> set[str]:
    return {
        str(p.relative_to(ROOT))
        for p in client_modules_with_logic()
        if not client_mirror_of(p).is_file()
    }


def _check(missing: set[str], listed: set[str], name: str, where: str) -> None:
    assert not missing - listed, f"write {where} for {missing - listed}"
    assert not listed - missing, f"mirrored now, delete from {name}: {listed - missing}"


def test_every_module_with_logic_has_its_test_file_or_is_listed() -> None:
    _check(unmirrored(), UNMIRRORED, "UNMIRRORED", "tests/<package>/test_<module>.py")


def test_every_client_module_with_logic_has_its_test_file_or_is_listed() -> None:
    _check(
        client_unmirrored(),
        UNMIRRORED_CLIENT,
        "UNMIRRORED_CLIENT",
        "tests/client/<path>/test_<module>.py",
    )


def test_the_client_mirror_rule() -> None:
    assert client_mirror_of(ROOT / "client_cli" / "connection.py") == (
        ROOT / "tests" / "client" / "test_connection.py"
    )
    assert client_mirror_of(ROOT / "client_cli" / "commands" / "operator.py") == (
        ROOT / "tests" / "client" / "commands" / "test_operator.py"
    )
