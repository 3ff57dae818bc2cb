"""Client tests never touch the user's own config: XDG_CONFIG_HOME is a temporary dir,
also for the `samedeal` subprocesses they start (which inherit os.environ)."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def config_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "config-home"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home))
    return home
