"""The operator's commands on the database: `admin grant NAME`, `tournament
create|close|list`, `ratings rebuild`. They never run the lifecycle clock: only servers
do (a tournament created here opens on a server's clock)."""

from __future__ import annotations

import argparse
import os
from datetime import datetime
from typing import Any

from server.cli.common import (
    Database,
    Subparsers,
    command,
    emit,
    fail,
    on_competition,
    subcommands,
)
from server.cli.schedule import beacon_config
from server.competition.catalogue import TournamentSpec
from server.competition.service import Competition
from server.domain import timing
from server.domain.club_events import OPERATOR, EventFields
from server.domain.organiser_words import tournament_line
from server.domain.schedule import SeriesFields
from server.domain.tournament_options import (
    TournamentRequest,
    add_create_arguments,
    add_json_flag,
    request_from,
)
from server.i18n.terminal import said_error, t, tn
from server.net.protocol import summary


def add_parser(sub: Subparsers[Any]) -> None:
    a = command(sub, "admin", run, help=t("server.admin.help"))
    g = command(subcommands(a, "admin_command"), "grant", run, help=t("server.admin.grant_help"))
    g.add_argument("name", help=t("server.admin.name_help"))
    tm = command(sub, "tournament", run, help=t("server.tournament.help"))
    t_sub = subcommands(tm, "tournament_command")
    c = command(t_sub, "create", run, help=t("server.tournament.create_help"))
    add_create_arguments(c, networks_default=os.environ.get("SAMEDEAL_BEACON_NETWORKS"))
    cl = command(t_sub, "close", run, help=t("server.tournament.close_help"))
    cl.add_argument("id", type=int, help=t("cli.tournament_id_help"))
    add_json_flag(cl, t("options.help.json_closed"))
    ls = command(t_sub, "list", run, help=t("server.tournament.list_help"))
    add_json_flag(ls, t("options.help.json_summaries"))
    r = command(sub, "ratings", run, help=t("server.ratings.help"))
    rebuild_help = t("server.ratings.rebuild_help")
    command(subcommands(r, "ratings_command"), "rebuild", run, help=rebuild_help)


def run(args: argparse.Namespace, database: Database) -> int:
    """admin, tournament or ratings, as args.command says."""
    runs = {"admin": run_admin, "tournament": run_tournament, "ratings": run_ratings}
    return runs[args.command](args, database)


def run_admin(args: argparse.Namespace, database: Database) -> int:
    """`admin grant NAME`: a registered player becomes an admin."""

    async def grant(competition: Competition) -> int:
        if await competition.players.grant_admin(args.name):
            print(t("server.admin.granted", name=args.name))
            return 0
        return fail(t("server.admin.no_player", name=args.name), 1)

    return on_competition(database, grant)


def run_tournament(args: argparse.Namespace, database: Database) -> int:
    """`tournament create|close|list`: each prints the tournaments in words, a line each,
    or with --json their summaries as JSON lines, as the protocol has them."""
    request, now, beacons = None, timing.utcnow(), None
    if args.tournament_command == "create":
        try:
            request = request_from(args, now)
            beacons = beacon_config(request.beacon, args.beacon_networks)
        except ValueError as exc:
            return fail(said_error(exc), 2)

    async def operate(competition: Competition) -> int:
        catalogue = competition.catalogue
        if args.tournament_command == "list":
            for t in await catalogue.summaries():
                seed = await catalogue.revealed_seed(t)
                emit(summary(t, seed, OPERATOR), args.json, tournament_line)
            return 0
        if args.tournament_command == "close":
            t = await competition.lifecycle.close(args.id)
            await competition.ratings.settle()  # a rating waiting its turn (ratings.py)
            emit(summary(t, await catalogue.revealed_seed(t), OPERATOR), args.json, tournament_line)
            return 0
        assert request is not None
        c = request.club  # v1.4: its clubs exist (else not_found)
        event = await competition.club_events.fields(
            None, c.club, c.battle, c.visibility, c.entry_code
        )
        t = await catalogue.create(tournament_spec(request, now, event))
        emit(summary(t, None, OPERATOR), args.json, tournament_line)
        return 0

    return on_competition(database, operate, beacons)


def tournament_spec(
    request: TournamentRequest, now: datetime, event: EventFields | None = None
) -> TournamentSpec:
    """What the catalogue creates for the organiser's request (starting now unless
    asked otherwise); `event`: its club fields as checked (ClubEvents.fields)."""
    event = event or EventFields()
    return TournamentSpec(
        name=request.name,
        game=request.game,
        options=request.options,
        ends_at=request.ends_at,
        starts_at=request.starts_at or now,
        time_limit_s=request.time_limit_s,
        join_until=request.join_until,
        beacon=request.beacon,
        series=SeriesFields(conditions=request.conditions, rated=request.rated),
        event=event,  # v1.4: the operator's club event or battle
    )


def run_ratings(args: argparse.Namespace, database: Database) -> int:
    """`ratings rebuild`: every placing and rating recomputed from the closed tournaments."""

    async def rebuilt(competition: Competition) -> int:
        done = await competition.ratings.rebuild()
        rebuilt = tn("server.ratings.rebuilt", done.tournaments, ratings=done.ratings)
        changed = (
            t("server.ratings.exact")
            if not done.changed
            else tn("server.ratings.changed", done.changed)
        )
        print(f"{rebuilt}; {changed}")
        return 0

    return on_competition(database, rebuilt)
