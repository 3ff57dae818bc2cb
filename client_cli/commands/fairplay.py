"""`samedeal disqualify T PLAYER --reason TEXT` and `samedeal fairplay T` (admin): fair
play over the protocol (docs/COMPETITION.md "Fair play")."""

from __future__ import annotations

import argparse
import json
from typing import Any, TextIO

from client_cli.commands.common import Subparsers, authed, command, run_async
from server.i18n.terminal import t


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
    print(f"tournament {reply['tournament']}: {reply['player']} disqualified", file=out)
    return 0


async def report(args: argparse.Namespace, out: TextIO) -> int:
    async with authed(args) as conn:
        reply = await conn.call("fairplay_report", tournament=args.tournament, moves=args.moves)
    write_findings(reply["findings"], args.json, out)
    return 0


def write_findings(findings: list[dict[str, Any]], as_json: bool, out: TextIO) -> None:
    """One line per finding: its kind, the players and why; or one JSON object each."""
    for f in findings:
        if as_json:
            print(json.dumps(f), file=out)
        else:
            print(f"{f['kind']:<12} {', '.join(f['players'])}: {f['why']}", file=out)
    if not as_json:
        print(f"{len(findings)} findings (pointers for the organiser, not verdicts)", file=out)
