"""`samedeal-server schedule create|list|cancel`: schedules from the operator's command
line, on the database directly (docs/COMPETITION.md "Series"). Creating one creates at
once the occurrences already due; the servers' lifecycle creates the rest."""

from __future__ import annotations

import argparse
import os
from typing import Any

from server.audit.drand import BeaconError, network_named
from server.cli.common import (
    Database,
    Subparsers,
    command,
    emit,
    fail,
    on_competition,
    subcommands,
)
from server.competition.beacon_policy import BeaconConfig, config_from
from server.competition.service import Competition
from server.domain import timing
from server.domain.club_events import OPERATOR
from server.domain.organiser_words import schedule_lines
from server.domain.schedule import NewSchedule
from server.domain.schedule_options import add_create_arguments, schedule_from
from server.domain.tournament_options import add_json_flag
from server.i18n.terminal import said_error, t
from server.net.replies import schedule_item


def add_parser(sub: Subparsers[Any]) -> None:
    p = command(
        sub,
        "schedule",
        run,
        help=t("server.schedule.help"),
        description=t("cli.schedule.description"),
    )
    p_sub = subcommands(p, "schedule_command")
    add_create_arguments(command(p_sub, "create", run, help=t("server.schedule.create_help")))
    ls = command(p_sub, "list", run, help=t("server.schedule.list_help"))
    add_json_flag(ls, t("options.help.json_schedules"))
    x = command(p_sub, "cancel", run, help=t("server.schedule.cancel_help"))
    x.add_argument("id", type=int, help=t("cli.schedule.id_help"))
    add_json_flag(x, t("options.help.json_schedule"))


def run(args: argparse.Namespace, database: Database) -> int:
    """Run one schedule command: 0 done, 1 refused (a line on stderr), 2 a bad flag."""
    new, beacons = None, BeaconConfig()
    if args.schedule_command == "create":
        try:
            new = schedule_from(args, timing.utcnow())
            beacons = beacon_config(new.beacon, args.beacon_networks)
        except ValueError as exc:
            return fail(said_error(exc), 2)

    async def operate(competition: Competition) -> int:
        schedules = competition.schedules
        if args.schedule_command == "list":
            for listing in await schedules.listing():
                emit(schedule_item(listing, OPERATOR), args.json, words)
            return 0
        if args.schedule_command == "cancel":
            s = await schedules.cancel(args.id)
        else:
            assert isinstance(new, NewSchedule)
            await competition.club_events.fields(  # v1.4: its club exists (else not_found)
                None, new.club_id, None, new.visibility, new.entry_code
            )
            s = await schedules.create(new)
        [listing] = await schedules.listing([s])
        emit(schedule_item(listing, OPERATOR), args.json, words)
        return 0

    return on_competition(database, operate, beacons)


def words(lang: str, item: dict[str, Any]) -> str:
    return "\n".join(schedule_lines(lang, item))


def beacon_config(spec: dict[str, Any] | None, networks_file: str | None) -> BeaconConfig:
    """The networks --beacon may name (the built-in ones, plus --beacon-networks FILE or
    SAMEDEAL_BEACON_NETWORKS, as `serve` reads them); ValueError in one line for a file
    that is not right or a network not among them."""
    config = config_from([], networks_file or os.environ.get("SAMEDEAL_BEACON_NETWORKS"))
    if spec is not None:
        try:
            network_named(str(spec["network"]), config.networks)
        except BeaconError as exc:
            raise ValueError(*exc.args) from None  # its Said: said_error says it
    return config
