"""samedeal-server's command groups and the parser they make together: each group is a
module with `add_parser(sub)`, whose subcommands name the `run(args, database)` that
runs them (server/__main__.py calls it)."""

from __future__ import annotations

import argparse

from server.cli import fairplay, migrate, operator, schedule, serve
from server.cli.common import verbose_flag
from server.i18n.terminal import OneLineParser, t
from server.store import db

DESCRIPTION = (  # --help's first lines
    "samedeal-server: serve | migrate | admin grant NAME | tournament create|close|list |\n"
    "ratings rebuild | disqualify | fairplay report | schedule create|list|cancel."
)
GROUPS = (serve, migrate, operator, fairplay, schedule)


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(prog="samedeal-server", description=t("server.description"))
    parser.add_argument(
        "--database-url",
        default=None,
        help=t("server.database_help", default=db.DEFAULT_URL),
    )
    parser.add_argument("--lang", default=None, metavar="LANG", help=t("cli.lang_help"))
    verbose_flag(parser, False)
    sub = parser.add_subparsers(dest="command", required=True, parser_class=OneLineParser)
    for group in GROUPS:
        group.add_parser(sub)
    return parser
