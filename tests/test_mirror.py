"""Tests mirror the server's modules that hold logic: server/<package>/<module>.py has its
tests in tests/<package>/test_<module>.py (issue 34).

A module holds logic when it defines a function or method with a body (not only a
docstring, `...` or `pass`). UNMIRRORED lists those still without a test file of their
name; it can only shrink: a listed module that has its file now (or is gone) fails the
test too, so whoever writes one deletes its line."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

UNMIRRORED: set[str] = {
    "server/store/pg_writer.py",
}


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


def modules_with_logic() -> list[Path]:
    return [
        p
        for p in sorted((ROOT / "server").rglob("*.py"))
        if p.parent != ROOT / "server"
        and p.name not in ("__init__.py", "__main__.py")
        and has_logic(p)
    ]


def unmirrored() -> set[str]:
    return {str(p.relative_to(ROOT)) for p in modules_with_logic() if not mirror_of(p).is_file()}


def test_every_module_with_logic_has_its_test_file_or_is_listed() -> None:
    missing = unmirrored()
    assert not missing - UNMIRRORED, (
        f"write tests/<package>/test_<module>.py for {missing - UNMIRRORED}"
    )
    assert not UNMIRRORED - missing, f"mirrored now, delete from UNMIRRORED: {UNMIRRORED - missing}"
