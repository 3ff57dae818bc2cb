"""Fixtures of the tests that run the server as real processes."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.processes import ServerProcess, cli


@pytest.fixture
def nodes(pg_url: str, tmp_path: Path) -> Iterator[list[ServerProcess]]:
    """Three server processes on one fresh PostgreSQL database (stopped at the end)."""
    assert cli(pg_url, "migrate").returncode == 0
    started = [ServerProcess(pg_url, tmp_path / f"node{i}.log", ("--no-demo",)) for i in range(3)]
    try:
        yield started
    finally:
        for node in started:
            if node.proc.poll() is None:
                node.stop()
