"""`samedeal create ...` and `samedeal close ID` (an admin's saved token): a tournament
created or closed over the protocol. The flags and their checks are the server's
command line's too (server/domain/tournament_options.py)."""

from __future__ import annotations

import argparse
from datetime import UTC, datetime
from typing import Any, TextIO

from client_cli.commands.common import (
    CliError,
    Subparsers,
    authed,
    command,
    known_beacon,
    run_async,
    write_json,
)
from server.domain.organiser_words import tournament_line
from server.domain.tournament_options import (
    add_create_arguments,
    add_json_flag,
    request_from,
    request_message,
)
from server.i18n.terminal import lang, said_error, t


def add_parser(sub: Subparsers[Any]) -> None:
    add_create_arguments(command(sub, "create", run, help=t("cli.create.help")))
    p = command(sub, "close", run, help=t("cli.close.help"))
    p.add_argument("id", type=int, help=t("cli.tournament_id_help"))
    add_json_flag(p, t("options.help.json_closed"))


def run(args: argparse.Namespace, out: TextIO) -> int:
    work = create(args, out) if args.command == "create" else close(args, out)
    return run_async(work, args.server)


async def create(args: argparse.Namespace, out: TextIO) -> int:
    try:
        msg = request_message(request_from(args, datetime.now(UTC)))
        known_beacon(args.beacon, args.beacon_networks)  # a network this side knows
    except ValueError as exc:
        raise CliError(said_error(exc), code=2) from None
    async with authed(args) as conn:
        made = (await conn.call("create_tournament", **msg))["tournament"]
    return show(made, args, out)


async def close(args: argparse.Namespace, out: TextIO) -> int:
    async with authed(args) as conn:
        closed = (await conn.call("close_tournament", tournament=args.id))["tournament"]
    return show(closed, args, out)


def show(summary: dict[str, Any], args: argparse.Namespace, out: TextIO) -> int:
    """The tournament in words (the local zone, the user's language), or its SUMMARY as
    JSON with --json."""
    if args.json:
        write_json(summary, None, out)
    else:
        print(tournament_line(lang(), summary), file=out)
    return 0
