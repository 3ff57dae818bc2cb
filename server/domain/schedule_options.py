"""The organiser's command-line words for schedules, shared by `samedeal-server schedule`
and `samedeal schedule`: spans (`1d`, `12h`, `90m`, `60s`, `1h30m`), a time of day
(`18:00`, `18:00Z`, `21:00-03:00`: the next such time) and named game options instead of
raw JSON.

Pure: argparse declarations and parsing; every error is one line (ValueError). The words
a schedule shares with one tournament (spans, --options, conditions, beacons) are
tournament_options.py's."""

from __future__ import annotations

import argparse
from datetime import datetime
from typing import Any

from server.domain import timing
from server.domain.schedule import NewSchedule
from server.domain.tournament_options import (
    ClubFlags,
    add_beacon_flags,
    add_club_arguments,
    add_condition_arguments,
    add_game_flags,
    add_json_flag,
    club_flags,
    game_options,
    parse_conditions,
    parse_span,
    parse_time,
    positive_span,
)
from server.i18n.terminal import t

__all__ = ["game_options", "parse_at", "parse_span"]  # the words schedules share


def parse_at(text: str, now: datetime) -> datetime:
    """--at: the first start, a time of day (the next one) or an ISO 8601 time, with any
    UTC offset or in the local zone (tournament_options.parse_time)."""
    return parse_time(text, "--at", now)


def add_create_arguments(p: argparse.ArgumentParser) -> None:
    """The flags of `schedule create`, each with its help."""
    p.add_argument("--name", required=True, help=t("options.help.series_name"))
    p.add_argument(
        "--game", choices=["gaps", "klondike"], default="gaps", help=t("options.help.series_game")
    )
    p.add_argument(
        "--at", required=True, help=t("options.help.first_at", time=t("options.help.time"))
    )
    p.add_argument("--every", default="1d", help=t("options.help.every"))
    p.add_argument("--duration", default="1h", help=t("options.help.series_duration"))
    p.add_argument("--join-for", help=t("options.help.series_join_for"))
    p.add_argument("--time-limit", help=t("options.help.time_limit"))
    add_game_flags(p)
    add_condition_arguments(p)
    p.add_argument("--unrated", action="store_true", help=t("options.help.series_unrated"))
    add_beacon_flags(p, t("options.help.beacon_series"))
    add_club_arguments(p, battle=False)
    add_json_flag(p, t("options.help.json_schedule"))


def schedule_from(args: argparse.Namespace, now: datetime) -> NewSchedule:
    """The schedule the flags describe; ValueError (one line) naming a bad flag."""
    club = club_flags(args)
    join_for_s = positive_span(args.join_for, "--join-for") if args.join_for else None
    time_limit_s = positive_span(args.time_limit, "--time-limit") if args.time_limit else None
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
        club_id=club.club,
        visibility=club.visibility,
        entry_code=club.entry_code,
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
    }
    if not new.rated:  # else the server's default (v1.4: false in a player's club event)
        out["rated"] = False
    for key in ("time_limit_s", "join_for_s", "conditions", "beacon"):
        if getattr(new, key) is not None:
            out[key] = getattr(new, key)
    club = ClubFlags(new.club_id, new.visibility, new.entry_code)
    return out | club.message()
