"""server/cli/common.py: one-line failures, and the competition over the database."""

from __future__ import annotations

import pytest

from server.cli.common import Database, fail, on_competition
from server.competition.errors import CompetitionError
from server.competition.service import Competition
from tests.cli.conftest import Server


def test_fail_says_one_line_and_returns_the_status(capsys: pytest.CaptureFixture[str]) -> None:
    assert fail("it broke", 3) == 3
    assert capsys.readouterr().err == "samedeal-server: it broke\n"


def test_on_competition_runs_the_work_and_turns_a_refusal_into_one_line(
    server: Server, sqlite_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    database = Database(sqlite_url, sqlite_url)

    async def count(competition: Competition) -> int:
        return len(await competition.catalogue.summaries()) + 5

    async def refuse(competition: Competition) -> int:
        raise CompetitionError("forbidden", "not yours")

    assert on_competition(database, count) == 5
    assert on_competition(database, refuse) == 1
    assert capsys.readouterr().err == "samedeal-server: forbidden: not yours\n"
