"""The pure parts of schedules: occurrence arithmetic (against a brute-force reading of
the contract) and a schedule's checks (the organiser's spans, times and options:
test_schedule_options.py; entry conditions: test_conditions.py)."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.domain.schedule import LEAD_S, NewSchedule, check, due, occurrence, upcoming

T0 = datetime(2026, 12, 1, 18, 0, tzinfo=UTC)


def sched(every: int = 86400, duration: int = 3600, join: int | None = None) -> NewSchedule:
    return NewSchedule("Daily", "gaps", {}, T0, every, duration, join_for_s=join)


def test_occurrence_k_is_named_and_timed_as_the_contract_says() -> None:
    o = occurrence(sched(join=600), 3)
    assert o.name == "Daily #3" and o.starts_at == T0 + timedelta(days=2)
    assert o.ends_at == o.starts_at + timedelta(hours=1)
    assert o.join_until == o.starts_at + timedelta(minutes=10)
    assert occurrence(sched(), 1).join_until == T0 + timedelta(hours=1)


@settings(deadline=None, max_examples=300)
@given(
    every=st.integers(60, 10_000),
    duration=st.integers(1, 30_000),
    offset=st.integers(-200_000, 200_000),
)
def test_due_is_every_occurrence_not_ended_and_starting_within_a_period(
    every: int, duration: int, offset: int
) -> None:
    s = sched(every, duration)
    now = T0 + timedelta(seconds=offset)
    horizon = now + timedelta(seconds=every + min(LEAD_S, every // 2))
    expected = [
        k
        for k in range(1, max(2, (offset + 2 * every) // every + 3))  # every k up to the horizon
        if occurrence(s, k).ends_at > now and occurrence(s, k).starts_at <= horizon
    ]
    assert due(s, now) == expected
    nxt = upcoming(s, now)
    assert len(nxt) == 3 and nxt[0].ends_at > now
    assert nxt[0].k == 1 or occurrence(s, nxt[0].k - 1).ends_at <= now


def test_after_downtime_only_occurrences_still_ahead_are_due() -> None:
    s = sched(every=60, duration=20)
    now = T0 + timedelta(seconds=3 * 60 + 25)  # #4 ran 180..200: missed
    assert due(s, now) == [5]  # #5 at 240 (within a period + lead), #6 at 300 not yet
    assert due(s, T0 + timedelta(seconds=190)) == [4, 5]  # #4 runs: created late, open


@pytest.mark.parametrize(
    ("over", "needle"),
    [({"every_s": 59}, "every_s"), ({"duration_s": 0}, "duration_s"),
     ({"join_for_s": 3601}, "join_for_s"), ({"name": "x" * 93}, "name"),
     ({"first_starts_at": datetime(2026, 12, 1)}, "time zone")],
)  # fmt: skip
def test_check_names_what_is_wrong(over: dict[str, object], needle: str) -> None:
    problem = check(replace(sched(), **over))  # type: ignore[arg-type]
    assert problem is not None and needle in problem
    assert check(sched()) is None
