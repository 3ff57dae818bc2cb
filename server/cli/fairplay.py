"""`samedeal-server disqualify T PLAYER --reason TEXT` and `samedeal-server fairplay
report T [--moves N] [--json]` (docs/COMPETITION.md "Fair play"): the operator's fair-play
commands on the database."""

from __future__ import annotations

import argparse
from typing import Any

from server.audit.fairplay import Thresholds
from server.audit.fairplay_lines import disqualified_line, report_lines
from server.cli.common import (
    Database,
    Subparsers,
    command,
    language,
    on_competition,
    subcommands,
)
from server.competition.service import Competition
from server.i18n.terminal import t


def add_parser(sub: Subparsers[Any]) -> None:
    d = command(sub, "disqualify", run, help=t("server.disqualify.help"))
    d.add_argument("tournament", type=int)
    d.add_argument("player")
    d.add_argument("--reason", required=True)
    f = command(sub, "fairplay", run, help=t("server.fairplay.help"))
    fr = command(
        subcommands(f, "fairplay_command"),
        "report",
        run,
        help=t("server.fairplay.report_help"),
    )
    fr.add_argument("tournament", type=int)
    fr.add_argument("--moves", type=int, default=20, help=t("server.fairplay.moves_help"))
    fr.add_argument("--json", action="store_true", help=t("server.fairplay.json_help"))


def run(args: argparse.Namespace, database: Database) -> int:
    """The operator's fair-play commands (server/competition/fairplay.py)."""

    async def act(competition: Competition) -> int:
        if args.command == "disqualify":
            return await _disqualify(args, competition)
        return await _report(args, competition)

    return on_competition(database, act)


async def _disqualify(args: argparse.Namespace, competition: Competition) -> int:
    done = await competition.fairplay.disqualify(args.tournament, args.player, args.reason)
    print(disqualified_line(language(), done.tournament_id, done.player, done.amendment))
    return 0


async def _report(args: argparse.Namespace, competition: Competition) -> int:
    limits = Thresholds(opening_moves=args.moves)
    found = await competition.fairplay.report(args.tournament, limits)
    for line in report_lines(language(), [f.as_dict() for f in found], args.json):
        print(line)
    return 0
