"""`samedeal verify FILE [--receipt SEQ:HASH] [--player NAME] [--beacon-networks FILE]`:
a record or bundle checked offline (client_cli/verify.py); no server is asked."""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from client_cli import verify
from client_cli.commands.common import Subparsers, command


def add_parser(sub: Subparsers[Any]) -> None:
    p = command(
        sub,
        "verify",
        run,
        help="check a record or bundle offline (exit 0 ok, 1 differs, 2 unreadable, 3 a bug)",
        description="Check a record or bundle offline: the seed against the commitment, "
        "every action's replay, the claimed results, the log hashes and log root, and for a "
        "bundle the standings. With --receipt, also that a log you saw acknowledged is in it "
        "unchanged. Exit 0 when all holds, 1 at the first difference, 2 when the file cannot "
        "be read as a record or bundle (or the arguments do not fit it).",
    )
    p.set_defaults(offline=True)  # no --server to check
    p.add_argument("file")
    p.add_argument(
        "--receipt", metavar="SEQ:HASH", type=verify.parse_receipt, help=verify.RECEIPT_HELP
    )
    p.add_argument("--player", metavar="NAME", help=verify.PLAYER_HELP)
    p.add_argument("--beacon-networks", metavar="FILE", help=verify.NETWORKS_HELP)


def run(args: argparse.Namespace, out: TextIO) -> int:
    return verify.run(
        args.file, receipt=args.receipt, player=args.player, networks=args.beacon_networks
    )
