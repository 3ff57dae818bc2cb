"""`samedeal delete-account` (v1.4 accounts): delete the saved player's account after the
name is typed again on standard input. The results stay under `deleted-<id>`, the name is
never registrable again, every device is signed out (PROTOCOL.md "Accounts")."""

from __future__ import annotations

import argparse
import sys
from typing import Any, TextIO

from client_cli import config
from client_cli.commands.common import CliError, Subparsers, authed, command, run_async
from server.i18n.terminal import Texts

# Every text a person reads here: the catalogue's `cli.delete.*` (docs/I18N.md).
TEXTS = Texts("cli.delete", ("help", "description", "ask", "mismatch", "done"))


def add_parser(sub: Subparsers[Any]) -> None:
    command(sub, "delete-account", run, help=TEXTS["help"], description=TEXTS["description"])


def run(args: argparse.Namespace, out: TextIO) -> int:
    return run_async(delete_account(args, out), args.server)


async def delete_account(args: argparse.Namespace, out: TextIO) -> int:
    async with authed(args) as conn:
        assert conn.player is not None
        name, player_id = str(conn.player["name"]), conn.player["id"]
        print(TEXTS["ask"].format(name=name), end="", file=out, flush=True)
        typed = sys.stdin.readline().strip()
        if typed != name:
            raise CliError(TEXTS["mismatch"].format(name=name), code=2)
        await conn.call("delete_account", confirm=typed)
    config.forget_token(args.server)
    print(TEXTS["done"].format(id=player_id, server=args.server), file=out)
    return 0
