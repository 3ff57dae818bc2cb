"""The organiser's flags for schedules (schedule_options.py): spans (1d, 90m), the next
such time (18:00Z), a game's named options over raw JSON, --variant for gaps only."""

from __future__ import annotations

import argparse
from datetime import UTC, datetime, timedelta

import pytest

from server.domain.schedule_options import game_options, parse_at, parse_span
from server.domain.tournament_options import with_variant

T0 = datetime(2026, 12, 1, 18, 0, tzinfo=UTC)


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
