"""`samedeal disqualify T PLAYER --reason TEXT` and `samedeal fairplay T` (admin): fair
play over the protocol (docs/COMPETITION.md "Fair play")."""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from client_cli.commands.common import Subparsers, authed, command, run_async
from server.audit.fairplay_lines import disqualified_line, report_lines
from server.i18n.terminal import lang, t


def add_parser(sub: Subparsers[Any]) -> None:
    p = command(sub, "disqualify", run, help=t("cli.disqualify.help"))
    p.add_argument("tournament", type=int)
    p.add_argument("player")
    p.add_argument("--reason", required=True, help=t("cli.disqualify.reason_help"))
    p = command(sub, "fairplay", run, help=t("cli.fairplay.help"))
    p.add_argument("tournament", type=int)
    p.add_argument("--moves", type=int, default=20, help=t("server.fairplay.moves_help"))
    p.add_argument("--json", action="store_true", help=t("server.fairplay.json_help"))


def run(args: argparse.Namespace, out: TextIO) -> int:
    work = disqualify(args, out) if args.command == "disqualify" else report(args, out)
    return run_async(work, args.server)


async def disqualify(args: argparse.Namespace, out: TextIO) -> int:
    async with authed(args) as conn:
        reply = await conn.call(
            "disqualify", tournament=args.tournament, player=args.player, reason=args.reason
        )
    amended = bool(reply.get("amendment"))
    print(disqualified_line(lang(), reply["tournament"], reply["player"], amended), file=out)
    return 0


async def report(args: argparse.Namespace, out: TextIO) -> int:
    async with authed(args) as conn:
        reply = await conn.call("fairplay_report", tournament=args.tournament, moves=args.moves)
    for line in report_lines(lang(), reply["findings"], args.json):
        print(line, file=out)
    return 0
