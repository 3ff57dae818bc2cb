"""The commands of `samedeal` and the parser they make together: each group is a module
with `add_parser(sub)`, whose subcommands name the `run(args, out)` that runs them
(client_cli/__main__.py calls it)."""

from __future__ import annotations

import argparse

from client_cli import config
from client_cli.commands import (
    account,
    bot,
    club,
    delete_account,
    fairplay,
    login,
    operator,
    play,
    ratings,
    records,
    schedule,
    standings,
    tournaments,
    verify,
)
from server.i18n.terminal import OneLineParser, t

DESCRIPTION = "samedeal: the command-line client for players, organisers and auditors."
"""(the English of `cli.description`)"""
GROUPS = (
    account,
    tournaments,
    play,
    standings,
    records,
    verify,
    operator,
    bot,
    ratings,
    fairplay,
    schedule,
    club,
    login,
    delete_account,
)


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(prog="samedeal", description=t("cli.description"))
    parser.add_argument(
        "--server",
        default=None,
        help=t("cli.server_help", default=config.DEFAULT_SERVER),
    )
    parser.add_argument("--lang", default=None, metavar="LANG", help=t("cli.lang_help"))
    sub = parser.add_subparsers(dest="command", required=True, parser_class=OneLineParser)
    for group in GROUPS:
        group.add_parser(sub)
    return parser
