"""`samedeal register NAME [--replace]`: a new player, its token saved."""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from client_cli import config
from client_cli.commands.common import CLI_RETRIES, CliError, Subparsers, command, run_async
from client_cli.connection import Connection
from server.i18n.terminal import t


def add_parser(sub: Subparsers[Any]) -> None:
    p = command(
        sub,
        "register",
        run,
        help=t("cli.register.help"),
        description=t("cli.register.description"),
    )
    p.add_argument("name")
    p.add_argument("--replace", action="store_true", help=t("cli.register.replace_help"))


def run(args: argparse.Namespace, out: TextIO) -> int:
    return run_async(register(args, out), args.server)


async def register(args: argparse.Namespace, out: TextIO) -> int:
    kept = config.token_for(args.server)
    if kept is not None and not args.replace:
        raise CliError(
            t(
                "cli.register.kept",
                kept=kept[0],
                server=args.server,
                name=args.name,
                path=config.tokens_path(),
            ),
            code=2,
        )
    async with Connection(args.server, retries=CLI_RETRIES) as conn:
        reply = await conn.call("register", name=args.name)
    path = config.save_token(args.server, reply["player"]["name"], reply["token"])
    print(
        t("cli.register.done", name=reply["player"]["name"], id=reply["player"]["id"], path=path),
        file=out,
    )
    return 0
