"""`samedeal bot --tournament ID [--players N] [--strategy S] [--think-ms MS]`: bot
players over real connections (client_cli/bots.py)."""

from __future__ import annotations

import argparse
import json
from typing import Any, TextIO

from client_cli import config
from client_cli.bots import run_bots
from client_cli.commands.common import CLI_RETRIES, CliError, Subparsers, command, run_async
from client_cli.connection import Connection
from server.i18n.terminal import t


def add_parser(sub: Subparsers[Any]) -> None:
    p = command(sub, "bot", run, help=t("cli.bot.help"))
    p.add_argument("--tournament", type=int, required=True)
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--strategy", choices=["random", "greedy"], default="greedy")
    p.add_argument("--think-ms", type=int, default=0)


def run(args: argparse.Namespace, out: TextIO) -> int:
    return run_async(bot(args, out), args.server)


async def bot(args: argparse.Namespace, out: TextIO) -> int:
    if not 1 <= args.players <= 10_000 or args.think_ms < 0:
        raise CliError("--players is 1 to 10000 and --think-ms 0 or more", code=2)
    async with Connection(args.server, retries=CLI_RETRIES) as conn:  # reachable? open?
        listed = {t["id"]: t for t in (await conn.call("tournaments"))["items"]}
    t = listed.get(args.tournament)
    if t is None or t["status"] != "open":
        state = "no such tournament" if t is None else f"it is {t['status']}"
        raise CliError(f"bots cannot play tournament {args.tournament}: {state}")
    results = await run_bots(
        args.server,
        args.tournament,
        args.players,
        args.strategy,
        args.think_ms,
        receipts=config.ReceiptBook(),
    )
    for r in results:
        print(
            f"{r.name:<20} {r.status:<10} actions {r.actions:>4} errors {r.errors} "
            f"progress {json.dumps(r.progress)}",
            file=out,
        )
    return 0 if all(not r.status.startswith("error") for r in results) else 1
