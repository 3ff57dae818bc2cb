"""`samedeal tournaments [--json]`: the public list of tournaments."""

from __future__ import annotations

import argparse
from datetime import UTC, datetime
from typing import Any, TextIO

from client_cli.commands.common import Subparsers, command, maybe_authed, run_async, write_json
from client_cli.tui import render
from server.domain.organiser_words import game_words
from server.i18n.terminal import lang, t, tn


def add_parser(sub: Subparsers[Any]) -> None:
    p = command(sub, "tournaments", run, help=t("cli.tournaments.help"))
    p.add_argument("--json", action="store_true", help=t("cli.json_help"))


def run(args: argparse.Namespace, out: TextIO) -> int:
    return run_async(tournaments(args, out), args.server)


async def tournaments(args: argparse.Namespace, out: TextIO) -> int:
    async with maybe_authed(args) as conn:
        items = (await conn.call("tournaments"))["items"]
    if args.json:
        write_json(items, None, out)
        return 0
    now = datetime.now(UTC)
    name, game_, status = t("cli.col.name"), t("cli.col.game"), t("cli.col.status")
    entrants, when = t("cli.col.entrants"), t("cli.col.when")
    print(f"{'id':>4}  {name:<24} {game_:<28} {status:<9} {entrants:>8}  {when}", file=out)
    for item in items:
        game = game_words(lang(), item["game"], item.get("options"))
        print(
            f"{item['id']:>4}  {item['name'][:24]:<24} {game:<28} "
            f"{render.status_word(item['status']):<9} "
            f"{item['entrants']:>8}  {render.schedule(item, now)}",
            file=out,
        )
    if not args.json:
        print(tn("cli.tournaments.count", len(items)), file=out)
    return 0
