"""The pure parts of series: occurrence arithmetic (against a brute-force reading of
the contract), the organiser's spans and times (entry conditions: test_conditions.py)."""

from __future__ import annotations

import argparse
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.domain.schedule import LEAD_S, NewSchedule, check, due, occurrence, upcoming
from server.domain.schedule_options import game_options, parse_at, parse_span
from server.domain.tournament_options import with_variant

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


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("1d", 86400), ("12h", 43200), ("90m", 5400), ("60s", 60), ("1h30m", 5400), ("75", 75)],
)
def test_spans(text: str, seconds: int) -> None:
    assert parse_span(text, "--every") == seconds


@pytest.mark.parametrize("text", ["", "1w", "h", "1.5h", "-1d", "1d 2h"])
def test_bad_spans_say_what_a_span_is(text: str) -> None:
    with pytest.raises(ValueError, match="--every is a span like 1d"):
        parse_span(text, "--every")


def test_at_is_the_next_such_utc_time() -> None:
    assert parse_at("18:00Z", T0 - timedelta(minutes=1)) == T0
    assert parse_at("18:00Z", T0) == T0
    assert parse_at("18:00Z", T0 + timedelta(seconds=1)) == T0 + timedelta(days=1)
    assert parse_at("2027-01-01T09:30:00+01:00", T0) == datetime(2027, 1, 1, 8, 30, tzinfo=UTC)
    with pytest.raises(ValueError, match="--at"):
        parse_at("25:00Z", T0)


def test_named_options_lie_over_raw_json_and_belong_to_their_game() -> None:
    args = argparse.Namespace(
        options='{"draw": 1, "passes": 2}', redeals=None, draw=3, passes=None,
        guaranteed=True, hints=False,
    )  # fmt: skip
    assert game_options("klondike", args) == {"draw": 3, "passes": 2, "guaranteed": True}
    with pytest.raises(ValueError, match="--draw is an option of klondike, not of gaps"):
        game_options("gaps", args)
    with pytest.raises(ValueError, match="--options is not JSON"):
        game_options("gaps", argparse.Namespace(options="{", redeals=None))


def test_the_variant_flag_is_a_gaps_option() -> None:
    args = argparse.Namespace(options='{"redeals": 1}', variant="montana", redeals=None)
    assert game_options("gaps", args) == {"redeals": 1, "variant": "montana"}
    with pytest.raises(ValueError, match="--variant is an option of gaps, not of klondike"):
        game_options("klondike", args)
    assert with_variant({"redeals": 0}, "gaps", "addiction") == {
        "redeals": 0,
        "variant": "addiction",
    }
    assert with_variant({}, "klondike", None) == {}
    with pytest.raises(ValueError, match="--variant is an option of gaps, not of klondike"):
        with_variant({}, "klondike", "free_parking")
