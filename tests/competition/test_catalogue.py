"""The catalogue: creating tournaments (checked specs, seed and commitment), finding them,
and the seed revealed only after the close."""

from __future__ import annotations

import hashlib
from datetime import timedelta
from typing import Any

import pytest

from server.competition.errors import CompetitionError
from server.competition.service import Competition
from server.domain.model import PlayerInfo, TournamentStatus
from tests.competition.conftest import gaps_spec
from tests.support.harness import T0


@pytest.mark.parametrize(
    "over",
    [
        {"name": ""},
        {"game": "chess"},
        {"time_limit_s": 0},
        {"options": {"redeals": "many"}},
        {"ends_at": T0 - timedelta(seconds=1)},
        {"join_until": T0 + timedelta(hours=2)},
    ],
)
async def test_a_bad_spec_is_refused_and_nothing_is_stored(
    competition: Competition, over: dict[str, Any]
) -> None:
    with pytest.raises(CompetitionError) as refused:
        await competition.catalogue.create(gaps_spec(**over))
    assert refused.value.code == "bad_request"
    assert await competition.catalogue.summaries() == []


async def test_the_commitment_is_the_hash_of_a_seed_kept_secret(competition: Competition) -> None:
    t = await competition.catalogue.create(gaps_spec())
    seed = await competition.catalogue.seed(t.id)
    assert t.commitment == hashlib.sha256(seed).hexdigest() and t.status == TournamentStatus.OPEN
    assert await competition.catalogue.revealed_seed(t) is None
    with pytest.raises(CompetitionError) as refused:
        await competition.catalogue.revealed(t)
    assert refused.value.code == "not_revealed"
    closed = await competition.lifecycle.close(t.id)
    assert await competition.catalogue.revealed_seed(closed) == seed.hex()


async def test_a_tournament_starting_later_is_scheduled_and_not_open(
    competition: Competition, alice: PlayerInfo
) -> None:
    t = await competition.catalogue.create(gaps_spec(starts_at=T0 + timedelta(minutes=5)))
    assert t.status == TournamentStatus.SCHEDULED
    with pytest.raises(CompetitionError) as refused:
        await competition.play.join(alice, t.id)
    assert refused.value.code == "not_open"


async def test_a_tournament_created_by_another_process_is_found(
    competition: Competition, clock: Any
) -> None:
    other = Competition.build(competition.store, now=clock)
    t = await other.catalogue.create(gaps_spec())
    assert competition.catalogue.cached(t.id) is None
    assert (await competition.catalogue.find(t.id)).commitment == t.commitment
    with pytest.raises(CompetitionError) as refused:
        await competition.catalogue.find(99)
    assert refused.value.code == "not_found"
