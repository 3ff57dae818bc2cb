"""Schedules on a real store with a driven clock: occurrences created once, a period ahead,
skipped after downtime, kept after a cancel (entry conditions: test_admission.py)."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

import pytest

from server.competition.errors import CompetitionError
from server.competition.service import Competition
from server.domain.schedule import NewSchedule
from server.store import schedules as stored
from server.store.repository import Store
from tests.competition.conftest import Recorder
from tests.support.harness import T0, Clock


def daily(**over: Any) -> NewSchedule:
    fields: dict[str, Any] = dict(
        name="Minutely Gaps",
        game="gaps",
        options={"redeals": 1},
        first_starts_at=T0 + timedelta(seconds=10),
        every_s=60,
        duration_s=40,
    )
    fields.update(over)
    return NewSchedule(**fields)


async def occurrences(store: Store, schedule_id: int) -> dict[int, int]:
    made = await stored.occurrences(store, [schedule_id])
    return {k: tid for (_, k), tid in made.items()}


async def test_create_publishes_what_is_due_and_the_tick_keeps_a_period_ahead(
    competition: Competition, clock: Clock
) -> None:
    schedules = competition.schedules
    s = await schedules.create(daily())
    made = await occurrences(competition.store, s.id)
    assert sorted(made) == [1, 2]  # #1 in 10 s, #2 in 70 s (within a period and the lead)
    for k, tid in made.items():
        t = await competition.catalogue.find(tid)
        assert t.name == f"Minutely Gaps #{k}" and (t.schedule_id, t.occurrence) == (s.id, k)
        assert t.starts_at == T0 + timedelta(seconds=10 + 60 * (k - 1))
        assert t.ends_at - t.starts_at == timedelta(seconds=40)
        assert t.options == {"redeals": 1, "redeal": "keep_runs", "winnable": False} and t.rated
    for _ in range(120):  # ten minutes of ticks every 5 s
        clock.advance(5)
        await competition.lifecycle.tick()
    made = await occurrences(competition.store, s.id)
    assert sorted(made) == list(range(1, 13))  # created once each, never twice
    for tid in made.values():
        t = await competition.catalogue.find(tid)
        if t.occurrence != 1:  # #1 started sooner than a period after the schedule was made
            assert t.starts_at - t.created_at >= timedelta(seconds=60), t


async def test_concurrent_ensures_create_each_occurrence_once(store: Store, clock: Clock) -> None:
    nodes = [Competition.build(store, Recorder(), clock) for _ in range(3)]
    s = await stored.create_schedule(store, daily(), clock())
    for _ in range(5):
        await asyncio.gather(*(n.schedules.ensure_schedule(s, clock()) for n in nodes))
        clock.advance(60)
    made = await occurrences(store, s.id)
    assert sorted(made) == [1, 2, 3, 4, 5, 6]
    assert len(await store.tournaments()) == 6


async def test_downtime_skips_missed_occurrences_never_creates_them_in_the_past(
    store: Store, clock: Clock
) -> None:
    first = Competition.build(store, Recorder(), clock)
    s = await first.schedules.create(daily())
    assert sorted(await occurrences(store, s.id)) == [1, 2]
    clock.advance(4 * 60 + 15)  # down: #3 (190..230) and #4 (250..290) pass unseen
    restarted = Competition.build(store, Recorder(), clock)
    await restarted.lifecycle.start()
    made = await occurrences(store, s.id)
    assert 3 not in made and 4 not in made
    assert sorted(made) == [1, 2, 5, 6]  # #5 runs (250..290), #6 (310) is a period ahead
    for k in (5, 6):
        t = await restarted.catalogue.find(made[k])
        assert t.ends_at > clock() and t.created_at == clock()


async def test_cancel_stops_new_occurrences_and_keeps_those_created(
    competition: Competition, clock: Clock
) -> None:
    schedules = competition.schedules
    s = await schedules.create(daily())
    cancelled = await schedules.cancel(s.id)
    assert cancelled.cancelled
    clock.advance(600)
    await schedules.ensure(clock())
    assert sorted(await occurrences(competition.store, s.id)) == [1, 2]
    with pytest.raises(CompetitionError) as err:
        await schedules.cancel(999)
    assert err.value.code == "not_found"


@pytest.mark.parametrize(
    ("over", "needle"),
    [
        (dict(every_s=59), "every_s"),
        (dict(duration_s=0), "duration_s"),
        (dict(join_for_s=41), "join_for_s"),
        (dict(game="chess"), "unknown game"),
        (dict(options={"redeals": -1}), "redeals"),
        (dict(conditions={"min_age": 3}), "unknown condition"),
        (dict(conditions={"bots": "no"}), "bots"),
        (dict(name=""), "name"),
        (dict(beacon={"network": "nowhere"}), "unknown beacon network"),
    ],
)
async def test_bad_schedules_are_refused_naming_the_problem_and_store_nothing(
    competition: Competition, over: dict[str, Any], needle: str
) -> None:
    with pytest.raises(CompetitionError) as err:
        await competition.schedules.create(daily(**over))
    assert err.value.code == "bad_request" and needle in err.value.message
    assert await stored.schedules(competition.store) == []
    assert await competition.store.tournaments() == []
