"""samedeal: the command-line client (players, organisers, auditors)."""

from __future__ import annotations

import argparse
import sys

from client_cli import verify


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="samedeal", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    v = sub.add_parser(
        "verify", help="check a record or bundle offline (exit 0 ok, 1 differs, 2 unreadable)"
    )
    v.add_argument("file")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "verify":
        return verify.run(args.file)
    return 2


if __name__ == "__main__":
    sys.exit(main())
