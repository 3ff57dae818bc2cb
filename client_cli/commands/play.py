"""`samedeal play ID`: a tournament played in the terminal (client_cli/tui/app.py)."""

from __future__ import annotations

import argparse
import sys
from typing import Any, TextIO

from client_cli import config
from client_cli.commands.common import Subparsers, authed, command, run_command
from server.i18n.terminal import t


def add_parser(sub: Subparsers[Any]) -> None:
    p = command(sub, "play", run, help=t("cli.play.help"))
    p.add_argument("id", type=int, help=t("cli.tournament_id_help"))
    p.add_argument("--code", default=None, help=t("cli.play.code_help"))
    p.add_argument("--club", type=int, default=None, help=t("cli.play.club_help"))


def join_fields(args: argparse.Namespace) -> dict[str, Any]:
    """What `join` carries beyond the tournament (v1.4): the entry code, a battle's club."""
    fields: dict[str, Any] = {}
    if args.code is not None:
        fields["code"] = args.code
    if args.club is not None:
        fields["club"] = args.club
    return fields


async def _can_play(args: argparse.Namespace) -> str:
    """The saved token, once the server accepted it and the tournament let it in (join):
    every reason it cannot be played is one line before the full screen opens."""
    async with authed(args) as conn:
        await conn.call("join", tournament=args.id, **join_fields(args))
        assert conn.token is not None  # authed signed in
        return conn.token


def run(args: argparse.Namespace, out: TextIO) -> int:
    """The full screen, once every reason it cannot open was said in one line."""
    from client_cli.tui.app import PlayApp

    token = run_command(_can_play(args), args.server)
    if not isinstance(token, str):
        return token
    receipts = config.ReceiptBook()
    app = PlayApp(args.server, token, args.id, receipts=receipts, join=join_fields(args))
    try:
        app.run()
    finally:
        receipts.flush(final=True)
    if app.failure:
        print(f"samedeal: {app.failure}", file=sys.stderr)
        return 1
    return 0
