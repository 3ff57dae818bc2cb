"""`samedeal register NAME [--replace]`: a new player, its token saved."""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from client_cli import config
from client_cli.commands.common import CLI_RETRIES, CliError, Subparsers, command, run_async
from client_cli.connection import Connection


def add_parser(sub: Subparsers[Any]) -> None:
    p = command(
        sub,
        "register",
        run,
        help="create a player and save its token",
        description="Create a player and save its token (the only key to the player: keep "
        "a copy of the tokens file it names). A token already saved for the server is not "
        "replaced without --replace.",
    )
    p.add_argument("name")
    p.add_argument("--replace", action="store_true", help="replace the token already saved")


def run(args: argparse.Namespace, out: TextIO) -> int:
    return run_async(register(args, out), args.server)


async def register(args: argparse.Namespace, out: TextIO) -> int:
    kept = config.token_for(args.server)
    if kept is not None and not args.replace:
        raise CliError(
            f"a token for {kept[0]} is already saved for {args.server}; registering "
            f"{args.name} would replace it, and a lost token cannot be recovered: keep a "
            f"copy of {config.tokens_path()}, then add --replace",
            code=2,
        )
    async with Connection(args.server, retries=CLI_RETRIES) as conn:
        reply = await conn.call("register", name=args.name)
    path = config.save_token(args.server, reply["player"]["name"], reply["token"])
    print(
        f"registered {reply['player']['name']} (id {reply['player']['id']}); token saved in "
        f"{path}\nkeep a copy of that file: the token is the only key to this player, and "
        "the server cannot recover it",
        file=out,
    )
    return 0
