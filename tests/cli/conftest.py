"""samedeal-server's commands run in this process (`main(argv)`), on a fresh SQLite file."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from server.__main__ import main

Server = Callable[..., tuple[int, str, str]]


@pytest.fixture
def server(sqlite_url: str, capsys: pytest.CaptureFixture[str]) -> Server:
    """`server(*argv)`: samedeal-server run on the test's database: (status, out, err)."""

    def run(*argv: str) -> tuple[int, str, str]:
        code = main(["--database-url", sqlite_url, *argv])
        done = capsys.readouterr()
        return code, done.out, done.err

    assert run("migrate")[0] == 0
    return run
