"""The lifecycle's clock task (competition/ticker.py) on time the test drives: opening,
timing out, closing and schedules' occurrences happen at the tick that is due, whatever the
machine's load; a failing tick does not stop the clock. (A server's own clock task on
driven time: tests/e2e/test_clock_task.py.)"""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import AsyncIterator
from datetime import timedelta

import pytest

from server.competition.service import Competition
from server.competition.ticker import TICK_S, LoopScheduler, run_ticks
from server.domain.model import PlayerInfo, TournamentStatus
from server.store import schedules as stored
from tests.competition.conftest import Recorder, gaps_spec
from tests.competition.test_schedules import daily
from tests.support.driven import SETTLE_S, DrivenScheduler
from tests.support.harness import T0, Clock


@pytest.fixture
async def driven(competition: Competition, clock: Clock) -> AsyncIterator[DrivenScheduler]:
    """The competition's clock task, running on a scheduler over the test's clock."""
    scheduler = DrivenScheduler(clock)
    task = asyncio.get_running_loop().create_task(run_ticks(competition.lifecycle.tick, scheduler))
    try:
        await scheduler.settled()  # the first tick (a server's start) is done
        yield scheduler
    finally:
        task.cancel()


async def test_the_clock_task_opens_times_out_and_closes_at_the_due_tick(
    competition: Competition,
    driven: DrivenScheduler,
    alice: PlayerInfo,
    events: Recorder,
    clock: Clock,
) -> None:
    spec = gaps_spec(
        starts_at=T0 + timedelta(seconds=2),
        ends_at=T0 + timedelta(seconds=22),
        time_limit_s=5,
    )
    t = await competition.catalogue.create(spec)
    await driven.advance(1.5)
    assert competition.catalogue.get(t.id).status == TournamentStatus.SCHEDULED
    await driven.advance(TICK_S)  # the tick at the start
    assert competition.catalogue.get(t.id).status == TournamentStatus.OPEN
    assert driven.ticks == 4  # one every TICK_S of the driven time, none more
    snap = await competition.play.join(alice, t.id)
    assert snap.status == "playing"
    await driven.advance(5 - TICK_S)
    assert (await competition.play.state(alice, t.id)).status == "playing"
    await driven.advance(TICK_S)  # the tick at her deadline
    timed_out = await competition.play.state(alice, t.id)
    assert timed_out.status == "timed_out"
    assert not any(e[0] == "closed" for e in events.heard)
    await driven.advance((T0 + timedelta(seconds=22) - clock.t).total_seconds())
    assert competition.catalogue.get(t.id).status == TournamentStatus.CLOSED
    assert events.heard[-1][:2] == ("closed", t.id)


async def test_the_clock_task_creates_schedules_occurrences_a_period_ahead(
    competition: Competition, driven: DrivenScheduler
) -> None:
    s = await competition.schedules.create(daily())  # #1 at +10 s, #2 at +70 s

    async def made() -> list[int]:
        return sorted(k for _, k in await stored.occurrences(competition.store, [s.id]))

    assert await made() == [1, 2]
    await driven.advance(90)  # #3 (at +130 s) is due once it is a period and the lead away
    assert await made() == [1, 2, 3]
    await driven.advance(60)
    assert await made() == [1, 2, 3, 4]  # created once each, never twice


async def test_a_failing_tick_is_logged_and_the_next_comes_as_usual(
    clock: Clock, caplog: pytest.LogCaptureFixture
) -> None:
    calls: list[int] = []

    async def tick() -> None:
        calls.append(len(calls))
        if len(calls) == 2:
            raise RuntimeError("a bad tournament")

    scheduler = DrivenScheduler(clock)
    task = asyncio.get_running_loop().create_task(run_ticks(tick, scheduler))
    try:
        with caplog.at_level(logging.ERROR, logger="samedeal.lifecycle"):
            await scheduler.advance(3 * TICK_S)
        assert calls == [0, 1, 2, 3]
        assert [r.getMessage() for r in caplog.records] == ["lifecycle tick failed"]
    finally:
        task.cancel()


async def test_a_server_ticks_on_the_event_loop_time() -> None:
    ticked = asyncio.Event()
    calls: list[float] = []

    async def tick() -> None:
        calls.append(asyncio.get_running_loop().time())
        if len(calls) == 3:
            ticked.set()

    task = asyncio.get_running_loop().create_task(run_ticks(tick, LoopScheduler(), 0.01))
    try:
        await asyncio.wait_for(ticked.wait(), SETTLE_S)  # a real condition, generous
    finally:
        task.cancel()
    assert all(b - a >= 0.01 for a, b in itertools.pairwise(calls))  # never sooner
