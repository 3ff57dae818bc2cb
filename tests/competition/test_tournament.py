"""A tournament's runtime object owns its fields: each is written only by `receive` or a
named transition (server/competition/tournament.py), and a stale read never reopens a
closed tournament, however it arrives."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest

from server.competition.errors import CompetitionError
from server.competition.service import Competition
from server.competition.standings.table import Table
from server.competition.tournament import Closed, Tournament
from server.domain.model import PlayerInfo, TournamentInfo, TournamentStatus
from tests.competition.conftest import Recorder, gaps_spec
from tests.support.harness import Clock

CLOSED = TournamentStatus.CLOSED


def test_its_fields_are_read_only_from_outside() -> None:
    for name in ("info", "table", "seed", "closing", "announced", "log_root", "beacon_task"):
        assert isinstance(getattr(Tournament, name), property), name
        assert getattr(Tournament, name).fset is None, name


async def test_a_stale_read_never_reopens_a_closed_tournament(
    competition: Competition, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`Catalogue.reload` (the lifecycle's learn, an opening, a close) keeps the facts
    through the object's `learn`: a read made before the close, arriving after it,
    leaves the tournament closed."""
    t = await competition.catalogue.create(gaps_spec())
    stale = await competition.store.tournament(t.id)
    assert stale is not None and stale.status == TournamentStatus.OPEN
    await competition.lifecycle.close(t.id)

    async def stale_read(tournament_id: int) -> TournamentInfo | None:
        return stale

    monkeypatch.setattr(competition.store, "tournament", stale_read)
    assert (await competition.catalogue.reload(t.id)).status == CLOSED
    assert competition.catalogue.get(t.id).status == CLOSED
    runtime = await competition.catalogue.runtime(t.id)
    assert runtime.learn(stale).status == CLOSED and runtime.info.status == CLOSED


async def test_a_close_in_progress_refuses_play_until_it_ends(
    competition: Competition, alice: PlayerInfo
) -> None:
    t = await competition.catalogue.create(gaps_spec())
    runtime = await competition.catalogue.runtime(t.id)
    runtime.begin_close()
    with pytest.raises(CompetitionError) as refused:
        await competition.play.join(alice, t.id)
    assert refused.value.code == "closed"
    with pytest.raises(CompetitionError) as refused:
        await competition.lifecycle.close(t.id)  # one close at a time
    assert refused.value.code == "closed"
    runtime.end_close()  # failed: it may be tried again
    assert not runtime.closing
    await competition.play.join(alice, t.id)


async def test_the_announcement_and_the_root_are_its_own(
    competition: Competition, events: Recorder
) -> None:
    t = await competition.catalogue.create(gaps_spec())
    runtime = await competition.catalogue.runtime(t.id)
    assert not runtime.announced and runtime.log_root is None
    runtime.announcing()
    assert runtime.announced
    runtime.announce_failed()
    assert not runtime.announced
    closed = replace(t, status=CLOSED)
    assert runtime.receive(Closed(closed, "ab" * 32, "cd" * 32))
    assert runtime.announced and runtime.log_root == "cd" * 32 and runtime.info == closed
    assert events.heard[-1] == ("closed", t.id, "ab" * 32, "cd" * 32)
    runtime.root_known("ef" * 32)
    assert runtime.log_root == "ef" * 32


async def test_the_seed_is_known_once(competition: Competition) -> None:
    t = await competition.catalogue.create(gaps_spec())
    runtime = await competition.catalogue.runtime(t.id)
    seed = runtime.seed
    assert seed is not None and await competition.catalogue.seed(t.id) == seed
    runtime.seed_known(b"\x01" * 32)
    assert await competition.catalogue.seed(t.id) == b"\x01" * 32


async def test_a_beacon_fetch_is_awaited_fetched_failed_or_stopped(
    competition: Competition, clock: Clock
) -> None:
    t = await competition.catalogue.create(gaps_spec())
    runtime = await competition.catalogue.runtime(t.id)
    never: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    task = asyncio.ensure_future(never)
    runtime.beacon_awaited(task)
    assert runtime.beacon_task is task
    runtime.beacon_fetched()
    assert runtime.beacon_task is None and not task.cancelled()
    runtime.beacon_failed(12.5)
    assert runtime.beacon_retry_at == 12.5
    runtime.beacon_awaited(task)
    runtime.stop_waiting()
    await asyncio.sleep(0)
    assert runtime.beacon_task is None and task.cancelled()


async def test_retired_it_drops_its_games_and_takes_a_fresh_table(
    competition: Competition, alice: PlayerInfo, clock: Clock
) -> None:
    t = await competition.catalogue.create(gaps_spec())
    await competition.play.join(alice, t.id)
    runtime = await competition.catalogue.runtime(t.id)
    assert runtime.games()
    fresh = Table(t.id, competition.store, clock)
    runtime.retired(fresh)
    assert runtime.games() == [] and runtime.table is fresh
