"""`samedeal tournaments [--json]`: the public list of tournaments."""

from __future__ import annotations

import argparse
from datetime import UTC, datetime
from typing import Any, TextIO

from client_cli.commands.common import Subparsers, command, maybe_authed, run_async, write_json
from client_cli.tui import render


def add_parser(sub: Subparsers[Any]) -> None:
    p = command(sub, "tournaments", run, help="list tournaments")
    p.add_argument("--json", action="store_true")


def run(args: argparse.Namespace, out: TextIO) -> int:
    return run_async(tournaments(args, out), args.server)


async def tournaments(args: argparse.Namespace, out: TextIO) -> int:
    async with maybe_authed(args) as conn:
        items = (await conn.call("tournaments"))["items"]
    if args.json:
        write_json(items, None, out)
        return 0
    now = datetime.now(UTC)
    print(f"{'id':>4}  {'name':<24} {'game':<20} {'status':<9} {'entrants':>8}  when", file=out)
    for t in items:
        game = render.game_words(t["game"], t.get("options"))
        print(
            f"{t['id']:>4}  {t['name'][:24]:<24} {game:<20} {t['status']:<9} "
            f"{t['entrants']:>8}  {render.schedule(t, now)}",
            file=out,
        )
    return 0
