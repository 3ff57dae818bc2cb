"""`samedeal verify FILE [--receipt SEQ:HASH] [--player NAME] [--beacon-networks FILE]`:
a record or bundle checked offline (client_cli/verify.py); no server is asked."""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from client_cli import verify
from client_cli.commands.common import Subparsers, command
from server.i18n.terminal import t


def add_parser(sub: Subparsers[Any]) -> None:
    p = command(
        sub,
        "verify",
        run,
        help=t("cli.verify.help"),
        description=t("cli.verify.description"),
    )
    p.set_defaults(offline=True)  # no --server to check
    p.add_argument("file", help=t("cli.verify.file_help"))
    p.add_argument(
        "--receipt",
        metavar="SEQ:HASH",
        type=verify.parse_receipt,
        help=t("cli.verify.receipt_help"),
    )
    p.add_argument("--player", metavar="NAME", help=t("cli.verify.player_help"))
    p.add_argument("--beacon-networks", metavar="FILE", help=t("cli.verify.networks_help"))


def run(args: argparse.Namespace, out: TextIO) -> int:
    return verify.run(
        args.file, receipt=args.receipt, player=args.player, networks=args.beacon_networks
    )
