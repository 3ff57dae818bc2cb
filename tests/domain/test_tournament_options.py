"""server/domain/tournament_options.py: one tournament's flags, checks and messages, the
same for both command lines."""

from __future__ import annotations

import argparse
from datetime import UTC, datetime, timedelta

import pydantic
import pytest

from server.domain import tournament_options as bounds
from server.domain.tournament_options import (
    TournamentRequest,
    add_create_arguments,
    parse_span,
    request_from,
    request_message,
)

NOW = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


def parse(*argv: str) -> argparse.Namespace:
    p = argparse.ArgumentParser()
    add_create_arguments(p)
    return p.parse_args(["--name", "Cup", *argv])


def test_the_defaults_an_hour_from_now_on_gaps() -> None:
    request = request_from(parse(), NOW)
    assert request == TournamentRequest("Cup", "gaps", {}, NOW + timedelta(hours=1))
    assert request_message(request) == {
        "name": "Cup",
        "game": "gaps",
        "options": {},
        "ends_at": "2026-12-01T10:00:00+00:00",
    }


def test_every_flag_reaches_the_message() -> None:
    argv = [
        "--game", "klondike", "--options", '{"draw": 3}', "--starts-at",
        "2026-12-02T18:00+01:00", "--hours", "2", "--time-limit-s", "900", "--join-until",
        "2026-12-02T17:30:00Z", "--min-account-age", "1d", "--min-rating", "10",
        "--no-bots", "--unrated", "--beacon", "quicknet",
    ]  # fmt: skip
    request = request_from(parse(*argv), NOW)
    assert request_message(request) == {
        "name": "Cup",
        "game": "klondike",
        "options": {"draw": 3},
        "starts_at": "2026-12-02T17:00:00+00:00",
        "ends_at": "2026-12-02T19:00:00+00:00",
        "time_limit_s": 900,
        "join_until": "2026-12-02T17:30:00+00:00",
        "conditions": {"min_account_age_s": 86400, "min_rating": 10.0, "bots": False},
        "rated": False,
        "beacon": {"network": "quicknet"},
    }


def test_a_time_without_a_zone_is_utc_and_ends_at_wins_over_hours() -> None:
    request = request_from(parse("--ends-at", "2026-12-01T12:00", "--hours", "5"), NOW)
    assert request.ends_at == datetime(2026, 12, 1, 12, tzinfo=UTC)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (("--options", "{redeals: 2}"), "--options is not JSON (Expecting property name"),
        (("--options", "[1]"), "--options must be a JSON object, e.g. '{\"redeals\": 2}'"),
        (("--options", "[" * 100_000), "--options is not JSON options (too deep"),
        (("--hours", "nan"), "--hours is a positive number of hours, not nan"),
        (("--hours", "-1"), "--hours is a positive number of hours, not -1.0"),
        (("--time-limit-s", "0"), "--time-limit-s is a positive number of seconds"),
        (("--starts-at", "tomorrow"), "--at is a time like 18:00, 21:00-03:00 or 2026-"),
        (("--at", "25:00"), "--at is a time like 18:00"),
        (("--ends-at", "2026-13-45"), "--ends-at is a time like"),
        (("--join-until", "soon"), "--join-until is a time like"),
        (
            ("--starts-at", "9999-12-31T23:00Z", "--hours", "5"),
            "the tournament would end past the year 9999",
        ),
        (("--at", "9999-12-31T23:00Z", "--duration", "2h"), "the tournament would end past"),
        (("--duration", "0m"), "--duration is a span longer than nothing"),
        (("--duration", "an hour"), "--duration is a span like 1d"),
        (("--time-limit", "0"), "--time-limit is a span longer than nothing"),
        (("--join-for", "soon"), "--join-for is a span like"),
        (("--game", "klondike", "--redeals", "2"), "--redeals is an option of gaps"),
        (("--min-account-age", "a while"), "--min-account-age is a span like 1d"),
    ],
)
def test_each_mistake_is_one_line_naming_the_flag(argv: tuple[str, ...], message: str) -> None:
    with pytest.raises(ValueError) as raised:
        request_from(parse(*argv), NOW)
    assert str(raised.value).startswith(message) and "\n" not in str(raised.value)


def test_spans() -> None:
    assert [parse_span(t, "--x") for t in ("90", "1d", "1h30m", "60s")] == [90, 86400, 5400, 60]
    with pytest.raises(ValueError, match="--x is a span"):
        parse_span("1w", "--x")


def test_club_flags_reach_the_message_and_bad_ones_name_the_flag() -> None:
    """v1.4: --club, --visibility, --entry-code, --battle with --counted (schedules share
    all but the battle: domain/schedule_options.py)."""
    request = request_from(
        parse("--club", "3", "--visibility", "unlisted", "--entry-code", "Fr-1"), NOW
    )
    message = request_message(request)
    assert (message["club"], message["visibility"], message["entry_code"]) == (
        3,
        "unlisted",
        "Fr-1",
    )
    assert "rated" not in message and "battle" not in message  # the server's defaults
    battle = request_message(request_from(parse("--battle", "3,7", "--counted", "2"), NOW))
    assert battle["battle"] == {"clubs": [3, 7], "counted": 2} and "club" not in battle
    for argv, flag in (
        (("--entry-code", "abc"), "--entry-code"),
        (("--battle", "3,7"), "--battle"),
        (("--counted", "2"), "--battle"),
        (("--battle", "3,x", "--counted", "2"), "--battle"),
        (("--battle", "3,3", "--counted", "2"), "--battle"),
        (("--battle", "3,7", "--counted", "21"), "--battle"),
        (("--club", "1", "--battle", "3,7", "--counted", "2"), "--battle"),
    ):
        with pytest.raises(ValueError, match=flag):
            request_from(parse(*argv), NOW)


def test_the_bounds_are_one_place_for_checks_and_protocol_fields() -> None:
    assert bounds.name_fits("x") and bounds.name_fits("x" * 100)
    assert not bounds.name_fits("") and not bounds.name_fits("x" * 101)
    assert bounds.time_limit_fits(1) and bounds.time_limit_fits(7 * 86400)
    assert not bounds.time_limit_fits(0) and not bounds.time_limit_fits(7 * 86400 + 1)
    name = pydantic.TypeAdapter(bounds.TournamentName)
    limit = pydantic.TypeAdapter(bounds.TimeLimitS)
    assert name.validate_python("x" * 100) and limit.validate_python(7 * 86400)
    for adapter, bad in ((name, ""), (name, "x" * 101), (limit, 0), (limit, 7 * 86400 + 1)):
        with pytest.raises(pydantic.ValidationError):
            adapter.validate_python(bad)


def test_a_tournament_ends_after_its_start_and_now_and_joining_closes_within() -> None:
    later, end = NOW + timedelta(hours=1), NOW + timedelta(hours=2)
    assert bounds.ends_in_time(NOW, end, NOW)
    assert not bounds.ends_in_time(end, end, NOW) and not bounds.ends_in_time(NOW, end, end)
    assert bounds.join_until_fits(NOW, NOW, end) and bounds.join_until_fits(NOW, end, end)
    assert not bounds.join_until_fits(later, NOW, end)
    assert not bounds.join_until_fits(NOW, end + timedelta(seconds=1), end)
