"""The organiser's words for one tournament, shared by `samedeal create` and
`samedeal-server tournament create` (and, through `TournamentRequest` and
`request_message`, the shape of the protocol's `create_tournament`): the game and its
options as JSON, when it starts and ends (or how many hours it runs), the time limit,
the join cutoff, entry conditions, rated or not, and a public beacon.

Pure: argparse declarations and parsing; every error is one line (ValueError) naming
the flag. schedule_options.py builds on the same words for schedules."""

from __future__ import annotations

import argparse
import json
import math
import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from server.domain import timing
from server.games.gaps_options import VARIANT_NAMES
from server.i18n.terminal import t

GAMES = ("gaps", "klondike")
ISO_EXAMPLE = "2026-12-01T09:00+01:00"
UNITS = {"d": 86400, "h": 3600, "m": 60, "s": 1}
SPAN = re.compile(r"^(?:(\d{1,6})d)?(?:(\d{1,6})h)?(?:(\d{1,7})m)?(?:(\d{1,9})s)?$")


@dataclass(frozen=True, slots=True)
class TournamentRequest:
    """A tournament the organiser asks for, checked as far as flags can be (the game's
    options, names and times are the server's to judge). `starts_at` None: now, on the
    server's clock."""

    name: str
    game: str
    options: dict[str, Any]
    ends_at: datetime
    starts_at: datetime | None = None
    time_limit_s: int | None = None
    join_until: datetime | None = None
    conditions: dict[str, Any] | None = None
    rated: bool = True
    beacon: dict[str, str] | None = None  # {"network": N}


def add_create_arguments(p: argparse.ArgumentParser, networks_default: str | None = None) -> None:
    """The flags of both command lines' `create` (`networks_default`: --beacon-networks'
    default, the server's from SAMEDEAL_BEACON_NETWORKS)."""
    p.add_argument("--name", required=True, help=t("opt.name_help"))
    p.add_argument("--game", choices=GAMES, default="gaps", help=t("opt.game_help"))
    p.add_argument("--options", default="{}", help="JSON, e.g. '{\"redeals\": 2}'")
    add_variant_flag(p)
    p.add_argument("--starts-at", default=None, help=t("opt.starts_at_help"))
    p.add_argument("--ends-at", default=None, help=t("opt.ends_at_help"))
    p.add_argument("--hours", type=float, default=1.0, help=t("opt.hours_help"))
    p.add_argument("--time-limit-s", type=int, default=None, help=t("opt.time_limit_help"))
    p.add_argument("--join-until", default=None, help=t("opt.join_until_help"))
    add_condition_arguments(p)
    p.add_argument("--unrated", action="store_true", help=t("opt.unrated_help"))
    add_beacon_flags(p, networks_default=networks_default)


def add_variant_flag(p: argparse.ArgumentParser) -> None:
    """--variant, the Gaps family member (RULES-GAPS.md "Family variants"), of every
    command that creates tournaments."""
    p.add_argument(
        "--variant",
        choices=VARIANT_NAMES,
        help=t("opt.variant_help"),
    )


def with_variant(options: dict[str, Any], game: str, variant: str | None) -> dict[str, Any]:
    """The --options object with --variant laid over it; ValueError when the game is not
    Gaps."""
    if variant is None:
        return options
    if game != "gaps":
        raise ValueError(f"--variant is an option of gaps, not of {game}")
    return {**options, "variant": variant}


def add_condition_arguments(p: argparse.ArgumentParser) -> None:
    """Entry conditions (docs/COMPETITION.md), for a tournament or a schedule's."""
    p.add_argument("--min-account-age", help=t("opt.min_account_age_help"))
    p.add_argument("--min-rated", type=int, help=t("opt.min_rated_help"))
    p.add_argument("--min-rating", type=float, help=t("opt.min_rating_help"))
    p.add_argument("--max-rating", type=float, help=t("opt.max_rating_help"))
    p.add_argument("--no-bots", action="store_true", help=t("opt.no_bots_help"))


def add_beacon_flags(
    p: argparse.ArgumentParser, what: str = "", networks_default: str | None = None
) -> None:
    """--beacon NETWORK and --beacon-networks FILE (of `create` and `schedule create`)."""
    p.add_argument(
        "--beacon",
        metavar="NETWORK",
        help=t("opt.beacon_help", what=what or t("opt.beacon_what")),
    )
    p.add_argument(
        "--beacon-networks",
        metavar="FILE",
        default=networks_default,
        help=t("opt.beacon_networks_help"),
    )


def request_from(args: argparse.Namespace, now: datetime) -> TournamentRequest:
    """The tournament the flags describe; ValueError (one line) naming a bad flag."""
    options = with_variant(options_json(args.options), args.game, args.variant)
    if not math.isfinite(args.hours) or args.hours <= 0:
        raise ValueError(f"--hours is a positive number of hours, not {args.hours}")
    if args.time_limit_s is not None and args.time_limit_s <= 0:
        raise ValueError("--time-limit-s is a positive number of seconds")
    starts = parse_when(args.starts_at, "--starts-at") if args.starts_at else None
    try:
        ends = (
            parse_when(args.ends_at, "--ends-at")
            if args.ends_at
            else (starts or now) + timedelta(hours=args.hours)
        )
    except OverflowError:
        raise ValueError("--starts-at plus --hours ends past the year 9999") from None
    return TournamentRequest(
        name=args.name,
        game=args.game,
        options=options,
        ends_at=ends,
        starts_at=starts,
        time_limit_s=args.time_limit_s,
        join_until=parse_when(args.join_until, "--join-until") if args.join_until else None,
        conditions=parse_conditions(args),
        rated=not args.unrated,
        beacon={"network": args.beacon} if args.beacon else None,
    )


def request_message(request: TournamentRequest) -> dict[str, Any]:
    """The `create_tournament` message's fields for `request` (PROTOCOL.md): what is
    not asked for is left out, so the server's defaults apply."""
    msg: dict[str, Any] = {
        "name": request.name,
        "game": request.game,
        "options": request.options,
        "ends_at": request.ends_at.isoformat(),
    }
    if request.starts_at is not None:
        msg["starts_at"] = request.starts_at.isoformat()
    if request.time_limit_s:
        msg["time_limit_s"] = request.time_limit_s
    if request.join_until is not None:
        msg["join_until"] = request.join_until.isoformat()
    if request.conditions is not None:
        msg["conditions"] = request.conditions
    if not request.rated:
        msg["rated"] = False
    if request.beacon is not None:
        msg["beacon"] = request.beacon
    return msg


def options_json(text: str | None) -> dict[str, Any]:
    """--options: a JSON object (None or empty: no options)."""
    if not text:
        return {}
    try:
        options = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(
            f"--options is not JSON ({exc.msg} at character {exc.pos}); e.g. "
            "'{\"redeals\": 2}' (keys in double quotes)"
        ) from None
    except (ValueError, RecursionError):  # numbers past Python's digit limit; deep nesting
        raise ValueError("--options is not JSON options (too deep or a number too long)") from None
    if not isinstance(options, dict):
        raise ValueError("--options must be a JSON object, e.g. '{\"redeals\": 2}'")
    return options


def parse_when(text: str, flag: str) -> datetime:
    """An ISO 8601 time (one without a zone is UTC), or ValueError naming the flag."""
    try:
        return timing.parse_iso(text)
    except (ValueError, OverflowError):
        raise ValueError(
            f"{flag} is not an ISO 8601 time (e.g. {ISO_EXAMPLE}) in range: {text[:40]!r}"
        ) from None


def parse_span(text: str, flag: str) -> int:
    """Seconds in `1d`, `12h`, `90m`, `60s`, `1h30m` or a plain number of seconds."""
    text = text.strip().lower()
    if text.isdigit() and len(text) <= 9:
        return int(text)
    found = SPAN.match(text)
    if not text or found is None:
        raise ValueError(f"{flag} is a span like 1d, 12h, 90m, 60s or 1h30m, not {text[:40]!r}")
    return sum(int(n) * u for n, u in zip(found.groups(), UNITS.values(), strict=True) if n)


def parse_conditions(args: argparse.Namespace) -> dict[str, Any] | None:
    """The entry conditions the flags ask for (domain/conditions.py checks them)."""
    out: dict[str, Any] = {}
    if args.min_account_age is not None:
        out["min_account_age_s"] = parse_span(args.min_account_age, "--min-account-age")
    for name in ("min_rated", "min_rating", "max_rating"):
        if getattr(args, name) is not None:
            out[name] = getattr(args, name)
    if args.no_bots:
        out["bots"] = False
    return out or None
