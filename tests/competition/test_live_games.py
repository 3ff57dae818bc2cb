"""The games in memory (live_games.py): kept by their tournament's object, and a game
dropped from memory is rebuilt from the stored log exactly as it stood."""

from __future__ import annotations

import pytest

from server.competition.errors import CompetitionError
from server.competition.service import Competition
from server.domain.model import PlayerInfo
from tests.competition.conftest import first_moves, gaps_spec
from tests.support.harness import Clock


async def test_a_game_dropped_from_memory_is_rebuilt_as_it_stood(
    competition: Competition, alice: PlayerInfo, clock: Clock
) -> None:
    t = await competition.catalogue.create(gaps_spec())
    await first_moves(competition, clock, alice, t.id, 2)
    kept = competition.games.cached(t.id, alice.id)
    assert kept is not None and kept.seq == 2 and len(competition.games) == 1
    competition.games.forget(kept)
    assert competition.games.cached(t.id, alice.id) is None
    rebuilt = await competition.games.get(t.id, alice.id)
    assert rebuilt is not kept
    assert (rebuilt.seq, rebuilt.state.view(), rebuilt.figures()) == (
        kept.seq,
        kept.state.view(),
        kept.figures(),
    )
    assert rebuilt.head == kept.head  # the receipt chain's head too
    assert competition.games.cached(t.id, alice.id) is rebuilt


async def test_no_entry_is_not_found(competition: Competition, alice: PlayerInfo) -> None:
    t = await competition.catalogue.create(gaps_spec())
    with pytest.raises(CompetitionError) as refused:
        await competition.games.get(t.id, alice.id)
    assert (refused.value.code, refused.value.reason) == ("not_found", "no_entry")
