"""`samedeal-server schedule create|list|cancel`: schedules from the operator's command
line, on the database directly (docs/COMPETITION.md "Series"). Creating one creates at
once the occurrences already due; the servers' lifecycle creates the rest."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from typing import Any

from server.audit.beacon import BeaconError, network_named
from server.competition.beacon import BeaconConfig, config_from
from server.competition.errors import CompetitionError
from server.competition.service import Competition
from server.domain import timing
from server.domain.schedule_options import add_create_arguments, schedule_from
from server.net.replies import schedule_item
from server.store.repository import Store


def add_parser(sub: argparse._SubParsersAction[Any]) -> None:
    p = sub.add_parser(
        "schedule",
        help="recurring tournaments: create, list, cancel",
        description="Schedules make 'NAME #k' tournaments every period; each occurrence's "
        "commitment is published at least one period before it opens.",
    )
    p_sub = p.add_subparsers(dest="schedule_command", required=True)
    c = p_sub.add_parser("create", help="create a schedule (prints it as JSON)")
    add_create_arguments(c)
    ls = p_sub.add_parser("list", help="list schedules with their next occurrences (JSON lines)")
    x = p_sub.add_parser("cancel", help="cancel a schedule (tournaments created stay)")
    x.add_argument("id", type=int, help="the schedule's id")
    for q in (p, c, ls, x):
        q.add_argument("--database-url", default=argparse.SUPPRESS, help="SQLAlchemy URL")


def main(args: argparse.Namespace, url: str) -> int:
    """Run one schedule command: 0 done, 1 refused (a line on stderr), 2 a bad flag."""
    new, beacons = None, BeaconConfig()
    if args.schedule_command == "create":
        try:
            new = schedule_from(args, timing.utcnow())
            beacons = beacon_config(new.beacon, args.beacon_networks)
        except ValueError as exc:
            print(f"samedeal-server: {exc}", file=sys.stderr)
            return 2
    return asyncio.run(_run(args, url, new, beacons))


def beacon_config(spec: dict[str, Any] | None, networks_file: str | None) -> BeaconConfig:
    """The networks --beacon may name (the built-in ones, plus --beacon-networks FILE or
    SAMEDEAL_BEACON_NETWORKS, as `serve` reads them); ValueError in one line for a file
    that is not right or a network not among them."""
    config = config_from([], networks_file or os.environ.get("SAMEDEAL_BEACON_NETWORKS"))
    if spec is not None:
        try:
            network_named(str(spec["network"]), config.networks)
        except BeaconError as exc:
            raise ValueError(str(exc)) from None
    return config


async def _run(args: argparse.Namespace, url: str, new: object, beacons: BeaconConfig) -> int:
    store = await Store.open(url)
    try:
        competition = Competition.build(store)
        competition.catalogue.beacon_config = beacons
        series = competition.series
        if args.schedule_command == "list":
            for listing in await series.listing():
                print(json.dumps(schedule_item(listing)))
            return 0
        if args.schedule_command == "cancel":
            s = await series.cancel(args.id)
        else:
            from server.domain.schedule import NewSchedule

            assert isinstance(new, NewSchedule)
            s = await series.create(new)
        [listing] = await series.listing([s])
        print(json.dumps(schedule_item(listing)))
        return 0
    except CompetitionError as exc:
        print(f"{exc.code}: {exc.message}", file=sys.stderr)
        return 1
    finally:
        await store.close()
