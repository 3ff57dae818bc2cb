"""samedeal: the command-line client for players, organisers and auditors."""

from __future__ import annotations

import argparse
import os
import sys

from client_cli import config
from client_cli.commands.registry import build_parser

__all__ = ["build_parser", "main"]


def main(argv: list[str] | None = None) -> int:
    """Run one command. Whatever fails says so in one line on stderr, never a traceback
    (SAMEDEAL_DEBUG=1 shows the traceback of an unexpected error)."""
    args = build_parser().parse_args(argv)
    try:
        return _run(args)
    except KeyboardInterrupt:
        print("samedeal: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:
        if os.environ.get("SAMEDEAL_DEBUG"):
            raise
        where = f"{type(exc).__name__}: {str(exc)[:160]}".replace("\n", " ")
        print(f"samedeal: unexpected error ({where}); please report it", file=sys.stderr)
        return 3


def _run(args: argparse.Namespace) -> int:
    if not getattr(args, "offline", False):
        try:
            args.server = config.server_url(args.server)
        except config.BadServer as exc:
            print(f"samedeal: {exc}", file=sys.stderr)
            return 2
    code: int = args.run(args, sys.stdout)
    return code


if __name__ == "__main__":
    sys.exit(main())
