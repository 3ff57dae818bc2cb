"""`samedeal schedule create|list|cancel`: schedules over the protocol (create and cancel
need an operator's saved token; list is public)."""

from __future__ import annotations

import argparse
import json
import sys
from datetime import UTC, datetime
from typing import Any, TextIO

from client_cli import config
from client_cli.commands.common import Subparsers, command, known_beacon, run_async
from client_cli.connection import Connection
from server.domain.organiser_words import schedule_lines
from server.domain.schedule_options import add_create_arguments, schedule_from, schedule_message
from server.domain.tournament_options import add_json_flag
from server.i18n.terminal import lang, said_error, t


def add_parser(sub: Subparsers[Any]) -> None:
    p = command(
        sub,
        "schedule",
        run,
        help=t("cli.schedule.help"),
        description=t("cli.schedule.description"),
    )
    p_sub = p.add_subparsers(dest="schedule_command", required=True)
    add_create_arguments(p_sub.add_parser("create", help=t("cli.schedule.create_help")))
    ls = p_sub.add_parser("list", help=t("cli.schedule.list_help"))
    ls.add_argument("--json", action="store_true", help=t("cli.schedule.json_help"))
    x = p_sub.add_parser("cancel", help=t("cli.schedule.cancel_help"))
    x.add_argument("id", type=int, help=t("cli.schedule.id_help"))
    add_json_flag(x, t("options.help.json_schedule"))


def run(args: argparse.Namespace, out: TextIO) -> int:
    return run_async(schedule(args, out), args.server)


async def schedule(args: argparse.Namespace, out: TextIO) -> int:
    if args.schedule_command == "list":
        saved = config.token_for(args.server)
        async with Connection(args.server, token=saved[1] if saved else None) as conn:
            items = (await conn.call("schedules"))["items"]
        if args.json:
            print(json.dumps(items, indent=1, ensure_ascii=False), file=out)
        for s in [] if args.json else items:
            print(describe(s, args), file=out)
        return 0
    if args.schedule_command == "create":
        try:
            msg = schedule_message(schedule_from(args, datetime.now(UTC)))
            known_beacon(args.beacon, args.beacon_networks)  # a network this side knows
        except ValueError as exc:
            print(f"samedeal: {said_error(exc)}", file=sys.stderr)
            return 2
        request: tuple[str, dict[str, Any]] = ("create_schedule", msg)
    else:
        request = ("cancel_schedule", {"schedule": args.id})
    saved = config.token_for(args.server)
    if saved is None:
        raise SystemExit(f"samedeal: {t('cli.no_token', server=args.server)}")
    async with Connection(args.server, token=saved[1]) as conn:
        s = (await conn.call(request[0], **request[1]))["schedule"]
    if args.json:
        print(json.dumps(s, indent=1, ensure_ascii=False), file=out)
    else:
        print(describe(s, args), file=out)
    return 0


def describe(s: dict[str, Any], args: argparse.Namespace) -> str:
    """One schedule and its next occurrences, for people (organiser_words.py: the same
    words as samedeal-server's)."""
    return "\n".join(schedule_lines(lang(), s))
