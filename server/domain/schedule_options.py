"""The organiser's command-line words for schedules, shared by `samedeal-server schedule`
and `samedeal schedule`: spans (`1d`, `12h`, `90m`, `60s`, `1h30m`), a time of day
(`18:00Z`: the next such time) and named game options instead of raw JSON.

Pure: argparse declarations and parsing; every error is one line (ValueError)."""

from __future__ import annotations

import argparse
import json
import re
from datetime import UTC, datetime, timedelta
from typing import Any

from server.domain import timing
from server.domain.schedule import NewSchedule
from server.games.gaps_options import VARIANT_NAMES

UNITS = {"d": 86400, "h": 3600, "m": 60, "s": 1}
SPAN = re.compile(r"^(?:(\d{1,6})d)?(?:(\d{1,6})h)?(?:(\d{1,7})m)?(?:(\d{1,9})s)?$")
TIME_OF_DAY = re.compile(r"^([01]\d|2[0-3]):([0-5]\d)(?::([0-5]\d))?Z$")
GAME_OPTIONS = {  # flag -> (games it belongs to, option name)
    "variant": (("gaps",), "variant"),
    "redeals": (("gaps",), "redeals"),
    "draw": (("klondike",), "draw"),
    "passes": (("klondike",), "passes"),
    "guaranteed": (("klondike",), "guaranteed"),
    "hints": (("klondike",), "hints"),
}


def parse_span(text: str, flag: str) -> int:
    """Seconds in `1d`, `12h`, `90m`, `60s`, `1h30m` or a plain number of seconds."""
    text = text.strip().lower()
    if text.isdigit() and len(text) <= 9:
        return int(text)
    found = SPAN.match(text)
    if not text or found is None:
        raise ValueError(f"{flag} is a span like 1d, 12h, 90m, 60s or 1h30m, not {text[:40]!r}")
    return sum(int(n) * u for n, u in zip(found.groups(), UNITS.values(), strict=True) if n)


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
    try:
        options = json.loads(args.options) if args.options else {}
    except (ValueError, RecursionError):
        raise ValueError("--options is not JSON, e.g. '{\"redeals\": 2}'") from None
    if not isinstance(options, dict):
        raise ValueError("--options must be a JSON object, e.g. '{\"redeals\": 2}'")
    for flag, (games, name) in GAME_OPTIONS.items():
        value = getattr(args, flag, None)
        if value is None or value is False:
            continue
        if game not in games:
            raise ValueError(f"--{flag} is an option of {', '.join(games)}, not of {game}")
        options[name] = value
    return options


def add_variant_flag(p: argparse.ArgumentParser) -> None:
    """--variant, the Gaps family member (RULES-GAPS.md "Family variants"), of every
    command that creates tournaments."""
    p.add_argument(
        "--variant",
        choices=VARIANT_NAMES,
        help="Gaps: the family variant (default gaps; montana: the 2s fixed in column 0, "
        "addiction: the aces make the gaps at each redeal, free_parking: a gap also takes "
        "the card below its right neighbour)",
    )


def with_variant(options: dict[str, Any], game: str, variant: str | None) -> dict[str, Any]:
    """The --options object with --variant laid over it; ValueError when the game is not
    Gaps."""
    if variant is None:
        return options
    if game != "gaps":
        raise ValueError(f"--variant is an option of gaps, not of {game}")
    return {**options, "variant": variant}


def parse_conditions(args: argparse.Namespace) -> dict[str, Any] | None:
    out: dict[str, Any] = {}
    if args.min_account_age is not None:
        out["min_account_age_s"] = parse_span(args.min_account_age, "--min-account-age")
    for name in ("min_rated", "min_rating", "max_rating"):
        if getattr(args, name) is not None:
            out[name] = getattr(args, name)
    if args.no_bots:
        out["bots"] = False
    return out or None


def add_create_arguments(p: argparse.ArgumentParser) -> None:
    """The flags of `schedule create`, each with its help."""
    p.add_argument("--name", required=True, help="the series' name; occurrence k is 'NAME #k'")
    p.add_argument("--game", choices=["gaps", "klondike"], default="gaps", help="the game")
    p.add_argument(
        "--at",
        required=True,
        help="first start: a UTC time of day like 18:00Z (the next one) or ISO 8601",
    )
    p.add_argument(
        "--every", default="1d", help="period: 1d, 12h, 90m, 60s (at least 60s; default 1d)"
    )
    p.add_argument("--duration", default="1h", help="how long each occurrence runs (default 1h)")
    p.add_argument("--join-for", help="entries close this long after the start (default: end)")
    p.add_argument("--time-limit", help="per-player time limit, e.g. 30m (default: none)")
    add_variant_flag(p)
    p.add_argument("--redeals", type=int, help="Gaps: redeals allowed (default 2; addiction: 3)")
    p.add_argument("--draw", type=int, choices=[1, 3], help="Klondike: cards per draw")
    p.add_argument("--passes", type=int, help="Klondike: passes through the stock")
    p.add_argument("--guaranteed", action="store_true", help="Klondike: only deals proven winnable")
    p.add_argument("--hints", action="store_true", help="Klondike: allow hints")
    p.add_argument("--options", default=None, help="raw game options as JSON (flags win)")
    p.add_argument("--min-account-age", help="entry condition: account at least this old")
    p.add_argument("--min-rated", type=int, help="entry condition: at least N rated tournaments")
    p.add_argument("--min-rating", type=float, help="entry condition: rating at least R")
    p.add_argument("--max-rating", type=float, help="entry condition: rating at most R")
    p.add_argument("--no-bots", action="store_true", help="entry condition: keep bots out")
    p.add_argument("--unrated", action="store_true", help="occurrences do not count for ratings")
    add_beacon_flags(p, "each occurrence takes its deal from its own drand round")


def add_beacon_flags(p: argparse.ArgumentParser, what: str = "") -> None:
    """--beacon NETWORK and --beacon-networks FILE (of `create` and `schedule create`)."""
    p.add_argument(
        "--beacon",
        metavar="NETWORK",
        help="a public drand beacon (quicknet, default, or a --beacon-networks one): "
        + (what or "the deal comes from a round nobody knows at creation (docs/RNG.md)"),
    )
    p.add_argument(
        "--beacon-networks",
        metavar="FILE",
        help="JSON drand networks beyond quicknet and default, to name with --beacon",
    )


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
