"""Helpers of the browser client's tests: node, the JS test files, and Chromium."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
JS_TESTS = Path(__file__).parent / "js"
CHROMIUM = os.environ.get("SAMEDEAL_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _missing(what: str, how: str) -> None:
    """Skip, except under CI=true where a missing tool is a failure (as require_pg)."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"{what} is required under CI=true: {how}")
    pytest.skip(f"{what} not available ({how})")


def require_node() -> str:
    node = shutil.which("node")
    if node is None:
        _missing("node (v20 or later)", "install nodejs")
    assert node is not None
    major = int(
        subprocess.run([node, "--version"], capture_output=True, text=True).stdout[1:].split(".")[0]
    )
    if major < 20:
        _missing("node v20 or later", f"found v{major}")
    return node


def require_chromium() -> str:
    """The Debian chromium and the playwright package that drives it."""
    if not Path(CHROMIUM).is_file():
        _missing(f"Chromium at {CHROMIUM}", "apt-get install -y chromium")
    try:
        import playwright  # noqa: F401
    except ImportError:
        _missing("the playwright package", "pip install playwright")
    return CHROMIUM
