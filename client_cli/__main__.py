"""samedeal: the command-line client for players, organisers and auditors."""

from __future__ import annotations

import argparse
import os
import sys

from client_cli import config
from client_cli.commands.registry import build_parser
from server.i18n import terminal
from server.i18n.terminal import said_error, t

__all__ = ["build_parser", "main"]


def main(argv: list[str] | None = None) -> int:
    """Run one command. Whatever fails says so in one line on stderr, never a traceback
    (SAMEDEAL_DEBUG=1 shows the traceback of an unexpected error)."""
    given = sys.argv[1:] if argv is None else argv
    terminal.choose(terminal.option_in(given))  # before the parser: its help is in it too
    terminal.install_argparse()
    args = build_parser().parse_args(given)
    try:
        code = _run(args)
        sys.stdout.flush()
        return code
    except BrokenPipeError:
        return _reader_gone()
    except KeyboardInterrupt:
        print(f"samedeal: {t('cli.interrupted')}", file=sys.stderr)
        return 130
    except Exception as exc:
        if os.environ.get("SAMEDEAL_DEBUG"):
            raise
        where = f"{type(exc).__name__}: {str(exc)[:160]}".replace("\n", " ")
        print(f"samedeal: {t('cli.unexpected', where=where)}", file=sys.stderr)
        return 3


def _reader_gone() -> int:
    """Standard output's reader left (`samedeal tournaments | head -1`): not a failure.
    What is still buffered goes nowhere, so the interpreter's exit says nothing either."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    return 0


def _run(args: argparse.Namespace) -> int:
    if not getattr(args, "offline", False):
        try:
            args.server = config.server_url(args.server)
        except config.BadServer as exc:
            print(f"samedeal: {said_error(exc)}", file=sys.stderr)
            return 2
    code: int = args.run(args, sys.stdout)
    return code


if __name__ == "__main__":
    sys.exit(main())
