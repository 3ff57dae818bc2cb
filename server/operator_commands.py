"""The operator's commands on the database: admin grant, tournament create|close|list,
ratings rebuild (and the fair-play ones through fairplay_commands.py). They never run the
lifecycle clock: only servers do."""

from __future__ import annotations

import argparse
import json
import math
from datetime import UTC, datetime, timedelta

from server import fairplay_commands, schedule_cli
from server.command_line import UsageError, fail
from server.competition.beacon import BeaconConfig, config_from
from server.competition.catalogue import TournamentSpec
from server.competition.errors import CompetitionError
from server.competition.service import Competition
from server.domain import timing
from server.domain.schedule_options import with_variant
from server.store.repository import Store


async def operate(args: argparse.Namespace, url: str, spec: TournamentSpec | None) -> int:
    """The operator's commands. They never run the lifecycle clock: only servers do."""
    store = await Store.open(url)
    try:
        competition = Competition.build(store)
        if args.command == "ratings":
            return await _ratings_rebuild(competition)
        if args.command in ("disqualify", "fairplay"):
            return await fairplay_commands.run(args, competition)
        if args.command == "admin":
            if await competition.players.grant_admin(args.name):
                print(f"{args.name} is now an admin")
                return 0
            return fail(f"no player named {args.name!r} (register first)", 1)
        if getattr(args, "beacon_networks", None):
            competition.catalogue.beacon_config = _beacon_config_of_file(args.beacon_networks)
        return await _tournament(args, competition, spec)
    except CompetitionError as exc:
        return fail(f"{exc.code}: {exc.message}", 1)
    finally:
        await store.close()


def tournament_spec(args: argparse.Namespace) -> TournamentSpec:
    """The tournament the operator asks for, or UsageError naming the bad value."""
    try:
        options = json.loads(args.options)
    except json.JSONDecodeError as exc:
        raise UsageError(f"--options is not JSON: {exc.msg} at character {exc.pos}") from None
    except (ValueError, RecursionError):  # numbers past Python's digit limit; deep nesting
        raise UsageError("--options is not JSON options (too deep or a number too long)") from None
    if not isinstance(options, dict):
        raise UsageError("--options must be a JSON object, e.g. '{\"redeals\": 2}'")
    try:
        options = with_variant(options, args.game, args.variant)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if not math.isfinite(args.hours) or args.hours <= 0:
        raise UsageError(f"--hours is a positive number of hours, not {args.hours}")
    starts = _when(args.starts_at, "--starts-at") or datetime.now(UTC)
    try:
        ends = _when(args.ends_at, "--ends-at") or starts + timedelta(hours=args.hours)
    except OverflowError:
        raise UsageError("--starts-at plus --hours ends past the year 9999") from None
    beacon = {"network": args.beacon} if args.beacon else None
    try:
        schedule_cli.beacon_config(beacon, args.beacon_networks)  # a network it knows
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    return TournamentSpec(
        name=args.name,
        game=args.game,
        options=options,
        ends_at=ends,
        starts_at=starts,
        time_limit_s=args.time_limit_s,
        join_until=_when(args.join_until, "--join-until"),
        beacon=beacon,
    )


def _when(text: str | None, flag: str) -> datetime | None:
    if text is None:
        return None
    try:
        return timing.parse_iso(text)
    except (ValueError, OverflowError):
        raise UsageError(f"{flag} is not an ISO 8601 time in range: {text[:40]!r}") from None


def _beacon_config_of_file(path: str) -> BeaconConfig:
    try:
        return config_from([], path)
    except ValueError as exc:
        raise CompetitionError("bad_request", str(exc)) from None


async def _ratings_rebuild(competition: Competition) -> int:
    done = await competition.ratings.rebuild()
    print(
        f"rebuilt from {done.tournaments} closed tournaments: {done.ratings} ratings; "
        + (
            "the stored ratings were exact"
            if not done.changed
            else f"{done.changed} stored rows differed from the recomputation and were replaced"
        )
    )
    return 0


async def _tournament(
    args: argparse.Namespace, competition: Competition, spec: TournamentSpec | None
) -> int:
    from server.net.protocol import summary

    catalogue = competition.catalogue
    if args.tournament_command == "list":
        for t in await catalogue.summaries():
            print(json.dumps(summary(t, await catalogue.revealed_seed(t))))
        return 0
    if args.tournament_command == "close":
        t = await competition.lifecycle.close(args.id)
        await competition.ratings.settle()  # a rating waiting its turn (ratings.py)
        print(json.dumps(summary(t, await catalogue.revealed_seed(t))))
        return 0
    assert spec is not None
    t = await catalogue.create(spec)
    print(json.dumps(summary(t, None)))
    return 0
