"""server/cli/migrate.py: `samedeal-server migrate`."""

from __future__ import annotations

import pytest

from server.__main__ import main
from tests.cli.conftest import Server


def test_migrate_says_the_database_is_at_head_and_does_it_again(server: Server) -> None:
    assert server("migrate") == (0, "database at head\n", "")


def test_an_unreachable_database_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["--database-url", "postgresql+asyncpg://nobody@127.0.0.1:1/none", "migrate"])
    err = capsys.readouterr().err
    assert code == 1 and len(err.strip().splitlines()) == 1
    assert err.startswith("samedeal-server: ")
