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
        raise CliError(t("cli.bot.bad_flags"), code=2)
    async with Connection(args.server, retries=CLI_RETRIES) as conn:  # reachable? open?
        listed = {x["id"]: x for x in (await conn.call("tournaments"))["items"]}
    found = listed.get(args.tournament)
    if found is None or found["status"] != "open":
        state = (
            t("cli.bot.no_tournament")
            if found is None
            else t("cli.bot.it_is", status=t(f"cli.status.{found['status']}"))
        )
        raise CliError(t("cli.bot.cannot_play", id=args.tournament, why=state))
    results = await run_bots(
        args.server,
        args.tournament,
        args.players,
        args.strategy,
        args.think_ms,
        receipts=config.ReceiptBook(),
    )
    for r in results:
        known = r.status in ("playing", "won", "lost", "resigned", "timed_out")
        status = t(f"cli.status.{r.status}") if known else r.status
        figures = t(
            "cli.bot.figures",
            actions=f"{r.actions:>4}",
            errors=r.errors,
            progress=json.dumps(r.progress),
        )
        print(f"{r.name:<20} {status:<10} {figures}", file=out)
    return 0 if all(not r.status.startswith("error") for r in results) else 1
