"""`samedeal-server migrate`: the database's schema upgraded to head."""

from __future__ import annotations

import argparse
from typing import Any

from server.cli.common import Database, Subparsers, command, unreachable
from server.i18n.terminal import t
from server.store import db


def add_parser(sub: Subparsers[Any]) -> None:
    command(sub, "migrate", run, help=t("server.migrate.help"))


def run(args: argparse.Namespace, database: Database) -> int:
    if (code := unreachable(database.url)) is not None:
        return code
    db.migrate(database.url)
    print(t("server.migrate.done"))
    return 0
