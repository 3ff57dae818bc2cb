"""The organiser's words for one tournament, shared by `samedeal create` and
`samedeal-server tournament create` (and, through `TournamentRequest` and
`request_message`, the shape of the protocol's `create_tournament`): the game and its
options (named flags, or JSON), when it starts and ends (or how long it runs), the time
limit, the join cutoff, entry conditions, rated or not, a public beacon, and (v1.4) the
club, battle, visibility and entry code (`add_club_arguments`, shared by schedules). One
vocabulary (issue 39): spans are `1d`, `12h`, `90m`, `60s`, `1h30m` (--duration,
--time-limit, --join-for, --every); times are ISO 8601 or a time of day (`18:00`: the next
one), with any UTC offset (`18:00Z`, `21:00-03:00`) or none (the local zone, TZ).

Pure: argparse declarations and parsing; every error is one line (ValueError) naming
the flag. schedule_options.py builds on the same words for schedules."""

from __future__ import annotations

import argparse
import json
import math
import re
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta, timezone
from typing import Annotated, Any

from pydantic import Field, StrictInt, StrictStr

from server.domain.club_events import PUBLIC, VISIBILITIES, checked
from server.games.gaps_options import VARIANT_NAMES
from server.i18n.said import said
from server.i18n.terminal import t

GAMES = ("gaps", "klondike")
ISO_EXAMPLE = "2026-12-01T09:00+01:00"
UNITS = {"d": 86400, "h": 3600, "m": 60, "s": 1}
SPAN = re.compile(r"^(?:(\d{1,6})d)?(?:(\d{1,6})h)?(?:(\d{1,7})m)?(?:(\d{1,9})s)?$")
TIME_OF_DAY = re.compile(
    r"^([01]?\d|2[0-3]):([0-5]\d)(?::([0-5]\d))?\s*(Z|[+-](?:[01]\d|2[0-3])(?::?[0-5]\d)?)?$", re.I
)
# A tournament's bounds, the one place of them: the protocol's create_tournament
# (net/protocol.py's fields, as these pydantic types), the catalogue's creation and these
# flags; schedules' too (domain/schedule.py).
NAME_MIN_LENGTH, NAME_MAX_LENGTH = 1, 100  # characters
TIME_LIMIT_MIN_S, TIME_LIMIT_MAX_S = 1, 7 * 86400  # one second to seven days
TournamentName = Annotated[StrictStr, Field(min_length=NAME_MIN_LENGTH, max_length=NAME_MAX_LENGTH)]
TimeLimitS = Annotated[StrictInt, Field(ge=TIME_LIMIT_MIN_S, le=TIME_LIMIT_MAX_S)]


def name_fits(name: str) -> bool:
    """A tournament name is 1-100 characters."""
    return NAME_MIN_LENGTH <= len(name) <= NAME_MAX_LENGTH


def time_limit_fits(seconds: int) -> bool:
    """A time limit is one second to seven days."""
    return TIME_LIMIT_MIN_S <= seconds <= TIME_LIMIT_MAX_S


def ends_in_time(starts_at: datetime, ends_at: datetime, now: datetime) -> bool:
    """A tournament ends after it starts and after now."""
    return starts_at < ends_at and now < ends_at


def join_until_fits(starts_at: datetime, join_until: datetime, ends_at: datetime) -> bool:
    """Joining closes between the start and the end (both included)."""
    return starts_at <= join_until <= ends_at


GAME_OPTIONS = {  # flag -> (games it belongs to, option name)
    "variant": (("gaps",), "variant"),
    "redeals": (("gaps",), "redeals"),
    "draw": (("klondike",), "draw"),
    "passes": (("klondike",), "passes"),
    "guaranteed": (("klondike",), "guaranteed"),
    "hints": (("klondike",), "hints"),
}


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
    club: ClubFlags = field(default_factory=lambda: ClubFlags())  # v1.4 club events


@dataclass(frozen=True, slots=True)
class ClubFlags:
    """v1.4 (PROTOCOL.md "Clubs (v1.4)"): the event's club or battle, visibility, code."""

    club: int | None = None
    visibility: str = "public"
    entry_code: str | None = None
    battle: dict[str, Any] | None = None  # {"clubs": [ID...], "counted": N}

    def message(self) -> dict[str, Any]:
        """Its fields of a create message: only those asked for."""
        out: dict[str, Any] = {}
        if self.club is not None:
            out["club"] = self.club
        if self.battle is not None:
            out["battle"] = self.battle
        if self.visibility != "public":
            out["visibility"] = self.visibility
        if self.entry_code is not None:
            out["entry_code"] = self.entry_code
        return out


CLUB_FLAG_ERRORS = {  # domain/club_events.checked's reasons, said as flags (catalogue keys)
    "bad_visibility": "options.error.bad_visibility",
    "bad_entry_code": "options.error.bad_entry_code",
    "battle_with_club": "options.error.battle_with_club",
    "bad_battle": "options.error.bad_battle",
}


def add_club_arguments(p: argparse.ArgumentParser, battle: bool = True) -> None:
    """--club, --visibility, --entry-code (and, for a tournament, --battle, --counted)."""
    p.add_argument("--club", type=int, help=t("options.help.club"))
    p.add_argument(
        "--visibility",
        choices=VISIBILITIES,
        default=PUBLIC,
        help=t("options.help.visibility"),
    )
    p.add_argument("--entry-code", help=t("options.help.entry_code"))
    if battle:
        p.add_argument("--battle", help=t("options.help.battle"))
        p.add_argument("--counted", type=int, help=t("options.help.counted"))


def club_flags(args: argparse.Namespace) -> ClubFlags:
    """The club flags; ValueError (one line) naming a bad one."""
    battle = None
    text, counted = getattr(args, "battle", None), getattr(args, "counted", None)
    if (text is None) != (counted is None):
        raise ValueError(said(CLUB_FLAG_ERRORS["bad_battle"]))
    if text is not None:
        try:
            battle = {"clubs": [int(part) for part in text.split(",")], "counted": counted}
        except ValueError:
            raise ValueError(said(CLUB_FLAG_ERRORS["bad_battle"])) from None
    problem = checked(args.club, battle, args.visibility, args.entry_code)
    if problem is not None:
        raise ValueError(said(CLUB_FLAG_ERRORS[problem]))
    return ClubFlags(args.club, args.visibility, args.entry_code, battle)


def add_create_arguments(p: argparse.ArgumentParser, networks_default: str | None = None) -> None:
    """The flags of both command lines' `create` (`networks_default`: --beacon-networks'
    default, the server's from SAMEDEAL_BEACON_NETWORKS)."""
    p.add_argument("--name", required=True, help=t("options.help.name"))
    p.add_argument("--game", choices=GAMES, default="gaps", help=t("options.help.game"))
    add_game_flags(p)
    p.add_argument(
        "--at",
        "--starts-at",
        dest="starts_at",
        help=t("options.help.at", time=t("options.help.time")),
    )
    p.add_argument("--duration", help=t("options.help.duration"))
    p.add_argument("--ends-at", help=t("options.help.ends_at", time=t("options.help.time")))
    p.add_argument("--time-limit", help=t("options.help.time_limit"))
    p.add_argument("--join-for", help=t("options.help.join_for"))
    p.add_argument("--join-until", help=t("options.help.join_until", time=t("options.help.time")))
    p.add_argument("--hours", type=float, help=argparse.SUPPRESS)  # before --duration
    p.add_argument("--time-limit-s", type=int, help=argparse.SUPPRESS)  # before --time-limit
    add_condition_arguments(p)
    p.add_argument("--unrated", action="store_true", help=t("options.help.unrated"))
    add_beacon_flags(p, networks_default=networks_default)
    add_club_arguments(p)
    add_json_flag(p)


def add_json_flag(p: argparse.ArgumentParser, what: str = "") -> None:
    """--json: for scripts (UTF-8, not escaped); people get words by default (`what`: the
    help's own words, in the language, else "the result as JSON")."""
    p.add_argument("--json", action="store_true", help=what or t("options.help.json"))


def add_game_flags(p: argparse.ArgumentParser) -> None:
    """The game's options by name (and --options JSON under them), of every command that
    creates tournaments."""
    add_variant_flag(p)
    p.add_argument("--redeals", type=int, help=t("options.help.redeals"))
    p.add_argument("--draw", type=int, choices=[1, 3], help=t("options.help.draw"))
    p.add_argument("--passes", type=int, help=t("options.help.passes"))
    p.add_argument("--guaranteed", action="store_true", help=t("options.help.guaranteed"))
    p.add_argument("--hints", action="store_true", help=t("options.help.hints"))
    p.add_argument("--options", default=None, help=t("options.help.options"))


def game_options(game: str, args: argparse.Namespace) -> dict[str, Any]:
    """--options JSON with the named flags laid over it; a flag of another game is an
    error."""
    options = options_json(args.options)
    for flag, (games, name) in GAME_OPTIONS.items():
        value = getattr(args, flag, None)
        if value is None or value is False:
            continue
        if game not in games:
            raise ValueError(
                said("options.error.not_of", flag=f"--{flag}", games=", ".join(games), game=game)
            )
        options[name] = value
    return options


def add_variant_flag(p: argparse.ArgumentParser) -> None:
    """--variant, the Gaps family member (RULES-GAPS.md "Family variants"), of every
    command that creates tournaments."""
    p.add_argument(
        "--variant",
        choices=VARIANT_NAMES,
        help=t("options.help.variant"),
    )


def with_variant(options: dict[str, Any], game: str, variant: str | None) -> dict[str, Any]:
    """The --options object with --variant laid over it; ValueError when the game is not
    Gaps."""
    if variant is None:
        return options
    if game != "gaps":
        raise ValueError(said("options.error.not_of", flag="--variant", games="gaps", game=game))
    return {**options, "variant": variant}


def add_condition_arguments(p: argparse.ArgumentParser) -> None:
    """Entry conditions (docs/COMPETITION.md), for a tournament or a schedule's."""
    p.add_argument("--min-account-age", help=t("options.help.min_account_age"))
    p.add_argument("--min-rated", type=int, help=t("options.help.min_rated"))
    p.add_argument("--min-rating", type=float, help=t("options.help.min_rating"))
    p.add_argument("--max-rating", type=float, help=t("options.help.max_rating"))
    p.add_argument("--no-bots", action="store_true", help=t("options.help.no_bots"))


def add_beacon_flags(
    p: argparse.ArgumentParser, what: str = "", networks_default: str | None = None
) -> None:
    """--beacon NETWORK and --beacon-networks FILE (of `create` and `schedule create`)."""
    p.add_argument(
        "--beacon",
        metavar="NETWORK",
        help=t("options.help.beacon", what=what or t("options.help.beacon_deal")),
    )
    p.add_argument(
        "--beacon-networks",
        metavar="FILE",
        default=networks_default,
        help=t("options.help.beacon_networks"),
    )


def request_from(args: argparse.Namespace, now: datetime) -> TournamentRequest:
    """The tournament the flags describe; ValueError (one line) naming a bad flag."""
    options = game_options(args.game, args)
    if args.hours is not None and (not math.isfinite(args.hours) or args.hours <= 0):
        raise ValueError(said("options.error.hours", hours=args.hours))
    if args.time_limit_s is not None and args.time_limit_s < TIME_LIMIT_MIN_S:
        raise ValueError(said("options.error.time_limit_s"))
    time_limit_s = args.time_limit_s
    if args.time_limit is not None:
        time_limit_s = positive_span(args.time_limit, "--time-limit")
    starts = parse_time(args.starts_at, "--at", now) if args.starts_at else None
    start = starts or now
    try:
        if args.ends_at:
            ends = parse_time(args.ends_at, "--ends-at", start)
        elif args.hours is not None:
            ends = start + timedelta(hours=args.hours)
        else:
            ends = start + timedelta(seconds=positive_span(args.duration or "1h", "--duration"))
        join_until = (
            parse_time(args.join_until, "--join-until", start)
            if args.join_until
            else start + timedelta(seconds=positive_span(args.join_for, "--join-for"))
            if args.join_for
            else None
        )
    except OverflowError:
        raise ValueError(said("options.error.year_9999")) from None
    return TournamentRequest(
        name=args.name,
        game=args.game,
        options=options,
        ends_at=ends,
        starts_at=starts,
        time_limit_s=time_limit_s,
        join_until=join_until,
        conditions=parse_conditions(args),
        rated=not args.unrated,
        beacon={"network": args.beacon} if args.beacon else None,
        club=club_flags(args),
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
    return msg | request.club.message()


def options_json(text: str | None) -> dict[str, Any]:
    """--options: a JSON object (None or empty: no options)."""
    if not text:
        return {}
    try:
        options = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(said("options.error.not_json", why=exc.msg, pos=exc.pos)) from None
    except (ValueError, RecursionError):  # numbers past Python's digit limit; deep nesting
        raise ValueError(said("options.error.too_deep")) from None
    if not isinstance(options, dict):
        raise ValueError(said("options.error.not_object"))
    return options


def parse_when(text: str, flag: str) -> datetime:
    """An ISO 8601 time with any UTC offset, or none (the local zone); ValueError naming
    the flag."""
    try:
        found = datetime.fromisoformat(text.strip().replace("z", "Z"))
        return (found if found.tzinfo else found.astimezone()).astimezone(UTC)
    except (ValueError, OverflowError, OSError):  # OSError: the C library's local time
        raise ValueError(
            said("options.error.time", flag=flag, example=ISO_EXAMPLE, text=repr(text[:40]))
        ) from None


def parse_time(text: str, flag: str, now: datetime) -> datetime:
    """A time of day (`18:00`, `18:00:30`, `18:00Z`, `21:00-03:00`: the next one at or
    after `now`, in that offset or, without one, the local zone) or an ISO 8601 time
    (`parse_when`); in UTC."""
    found = TIME_OF_DAY.match(text.strip())
    if found is None:
        return parse_when(text, flag)
    h, m, sec = (int(g or 0) for g in found.groups()[:3])
    zone = offset(found.group(4))
    day = now.astimezone(zone).date() if zone else now.astimezone().date()
    for add in range(3):  # today, else tomorrow (a local day may lack that hour: DST)
        at = at_time(day + timedelta(days=add), time(h, m, sec), zone)
        if at >= now:
            return at
    raise ValueError(
        said("options.error.no_time", flag=flag, text=text.strip())
    )  # pragma: no cover


def offset(text: str | None) -> timezone | None:
    """`Z`, `+01`, `-03:00`, `+0530` as a zone; None (the local zone) for none."""
    if not text:
        return None
    if text.upper() == "Z":
        return UTC
    digits = text[1:].replace(":", "")
    span = timedelta(hours=int(digits[:2]), minutes=int(digits[2:] or 0))
    return timezone(span if text[0] == "+" else -span)


def at_time(day: date, clock: time, zone: timezone | None) -> datetime:
    """That day's time in `zone` (None: the local zone), in UTC."""
    naive = datetime.combine(day, clock)
    return (naive.replace(tzinfo=zone) if zone else naive.astimezone()).astimezone(UTC)


def positive_span(text: str, flag: str) -> int:
    """A span (`parse_span`) of at least one second."""
    seconds = parse_span(text, flag)
    if seconds <= 0:
        raise ValueError(said("options.error.empty_span", flag=flag, text=repr(text[:40])))
    return seconds


def span_text(seconds: int) -> str:
    """Seconds as the span flags write them: 86400 -> 1d, 5400 -> 1h30m, 45 -> 45s."""
    if seconds <= 0:
        return "0s"
    out = ""
    for unit, size in UNITS.items():
        if seconds >= size:
            out += f"{seconds // size}{unit}"
            seconds %= size
    return out


def parse_span(text: str, flag: str) -> int:
    """Seconds in `1d`, `12h`, `90m`, `60s`, `1h30m` or a plain number of seconds."""
    text = text.strip().lower()
    if text.isdigit() and len(text) <= 9:
        return int(text)
    found = SPAN.match(text)
    if not text or found is None:
        raise ValueError(said("options.error.span", flag=flag, text=repr(text[:40])))
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
