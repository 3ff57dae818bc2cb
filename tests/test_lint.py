"""Static checks are part of the suite, so CI enforces them: ruff, the import contracts of
docs/ARCHITECTURE.md (import-linter) and strict typing (mypy)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def run(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True)


def test_ruff_check_is_clean() -> None:
    done = run(sys.executable, "-m", "ruff", "check", str(ROOT))
    assert done.returncode == 0, done.stdout + done.stderr


def test_import_contracts_are_kept() -> None:
    lint_imports = shutil.which("lint-imports", path=str(BIN)) or "lint-imports"
    done = run(lint_imports, "--no-cache")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout


def test_mypy_strict_is_clean() -> None:
    done = run(sys.executable, "-m", "mypy")  # files and strictness from pyproject.toml
    assert done.returncode == 0, done.stdout + done.stderr


MAX_MODULE_LINES = 450  # docs/ARCHITECTURE.md: one concept per module, none over ~450 lines


def test_no_server_module_is_over_450_lines() -> None:
    """Every Python and JavaScript module under server/ but the vendored one."""
    server = ROOT / "server"
    modules = [
        path
        for path in sorted(server.rglob("*"))
        if path.suffix in (".py", ".js") and (server / "web" / "vendor") not in path.parents
    ]
    assert len(modules) > 100  # the walk finds the tree (not an empty folder)
    too_long = {
        str(path.relative_to(ROOT)): lines
        for path in modules
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    }
    assert not too_long, f"split these by concept: {too_long}"
