"""The health part: the database's answer and the entries by status, as /healthz and
/metrics read them."""

from __future__ import annotations

from server.competition.service import Competition
from server.domain.model import PlayerInfo
from tests.competition.conftest import gaps_spec


async def test_ping_is_true_while_the_database_answers(competition: Competition) -> None:
    assert await competition.health.ping() is True


async def test_games_by_status_counts_the_entries(
    competition: Competition, alice: PlayerInfo
) -> None:
    assert await competition.health.games_by_status() == {}
    gaps = await competition.catalogue.create(gaps_spec())
    await competition.play.join(alice, gaps.id)
    assert await competition.health.games_by_status() == {"playing": 1}
