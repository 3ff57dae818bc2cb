"""The organiser's command-line words for schedules, shared by `samedeal-server schedule`
and `samedeal schedule`: spans (`1d`, `12h`, `90m`, `60s`, `1h30m`), a time of day
(`18:00Z`: the next such time) and named game options instead of raw JSON.

Pure: argparse declarations and parsing; every error is one line (ValueError). The words
a schedule shares with one tournament (spans, --options, conditions, beacons) are
tournament_options.py's."""

from __future__ import annotations

import argparse
import re
from datetime import UTC, datetime, timedelta
from typing import Any

from server.domain import timing
from server.domain.schedule import NewSchedule
from server.domain.tournament_options import (
    add_beacon_flags,
    add_condition_arguments,
    add_variant_flag,
    options_json,
    parse_conditions,
    parse_span,
)
from server.i18n.terminal import t

TIME_OF_DAY = re.compile(r"^([01]\d|2[0-3]):([0-5]\d)(?::([0-5]\d))?Z$")
GAME_OPTIONS = {  # flag -> (games it belongs to, option name)
    "variant": (("gaps",), "variant"),
    "redeals": (("gaps",), "redeals"),
    "draw": (("klondike",), "draw"),
    "passes": (("klondike",), "passes"),
    "guaranteed": (("klondike",), "guaranteed"),
    "hints": (("klondike",), "hints"),
}


def parse_at(text: str, now: datetime) -> datetime:
    """`HH:MM[:SS]Z`: the next such UTC time at or after `now`; else an ISO 8601 time."""
    found = TIME_OF_DAY.match(text.strip())
    if found:
        h, m, s = (int(g or 0) for g in found.groups())
        at = now.astimezone(UTC).replace(hour=h, minute=m, second=s, microsecond=0)
        return at if at >= now else at + timedelta(days=1)
    try:
        return timing.parse_iso(text)
    except (ValueError, OverflowError):
        raise ValueError(
            f"--at is a UTC time of day like 18:00Z or an ISO 8601 time, not {text[:40]!r}"
        ) from None


def game_options(game: str, args: argparse.Namespace) -> dict[str, Any]:
    """--options JSON with the named flags laid over it; a flag of another game is an
    error."""
    options = options_json(args.options)
    for flag, (games, name) in GAME_OPTIONS.items():
        value = getattr(args, flag, None)
        if value is None or value is False:
            continue
        if game not in games:
            raise ValueError(f"--{flag} is an option of {', '.join(games)}, not of {game}")
        options[name] = value
    return options


def add_create_arguments(p: argparse.ArgumentParser) -> None:
    """The flags of `schedule create`, each with its help."""
    p.add_argument("--name", required=True, help=t("opt.series_name_help"))
    p.add_argument("--game", choices=["gaps", "klondike"], default="gaps", help=t("opt.game_help"))
    p.add_argument(
        "--at",
        required=True,
        help=t("opt.at_help"),
    )
    p.add_argument(
        "--every", default="1d", help=t("opt.every_help")
    )
    p.add_argument("--duration", default="1h", help=t("opt.duration_help"))
    p.add_argument("--join-for", help=t("opt.join_for_help"))
    p.add_argument("--time-limit", help=t("opt.time_limit_schedule_help"))
    add_variant_flag(p)
    p.add_argument("--redeals", type=int, help=t("opt.redeals_help"))
    p.add_argument("--draw", type=int, choices=[1, 3], help=t("opt.draw_help"))
    p.add_argument("--passes", type=int, help=t("opt.passes_help"))
    p.add_argument("--guaranteed", action="store_true", help=t("opt.guaranteed_help"))
    p.add_argument("--hints", action="store_true", help=t("opt.hints_help"))
    p.add_argument("--options", default=None, help=t("opt.raw_options_help"))
    add_condition_arguments(p)
    p.add_argument("--unrated", action="store_true", help=t("opt.unrated_schedule_help"))
    add_beacon_flags(p, t("opt.beacon_what_schedule"))


def schedule_from(args: argparse.Namespace, now: datetime) -> NewSchedule:
    """The schedule the flags describe; ValueError (one line) naming a bad flag."""
    join_for_s = parse_span(args.join_for, "--join-for") if args.join_for else None
    time_limit_s = parse_span(args.time_limit, "--time-limit") if args.time_limit else None
    return NewSchedule(
        name=args.name,
        game=args.game,
        options=game_options(args.game, args),
        first_starts_at=parse_at(args.at, now),
        every_s=parse_span(args.every, "--every"),
        duration_s=parse_span(args.duration, "--duration"),
        conditions=parse_conditions(args),
        rated=not args.unrated,
        join_for_s=join_for_s,
        time_limit_s=time_limit_s,
        beacon={"network": args.beacon} if args.beacon else None,
    )


def schedule_message(new: NewSchedule) -> dict[str, Any]:
    """The `create_schedule` message's fields for `new`."""
    out: dict[str, Any] = {
        "name": new.name,
        "game": new.game,
        "options": new.options,
        "first_starts_at": timing.iso(new.first_starts_at),
        "every_s": new.every_s,
        "duration_s": new.duration_s,
        "rated": new.rated,
    }
    for key in ("time_limit_s", "join_for_s", "conditions", "beacon"):
        if getattr(new, key) is not None:
            out[key] = getattr(new, key)
    return out
