"""`samedeal-server disqualify` and `samedeal-server fairplay report` (docs/COMPETITION.md
"Fair play"): the operator's fair-play commands on the database."""

from __future__ import annotations

import argparse
import json
from typing import Any

from server.audit.fairplay import Thresholds
from server.competition.service import Competition


def parsers(sub: Any) -> list[argparse.ArgumentParser]:
    """`disqualify T PLAYER --reason TEXT` and `fairplay report T [--moves N] [--json]`."""
    d = sub.add_parser("disqualify", help="disqualify a player's entry (fair play)")
    d.add_argument("tournament", type=int)
    d.add_argument("player")
    d.add_argument("--reason", required=True)
    f = sub.add_parser("fairplay", help="fair play: the organiser's report")
    f_sub = f.add_subparsers(dest="fairplay_command", required=True)
    fr = f_sub.add_parser("report", help="entries worth a look, with why (never acts)")
    fr.add_argument("tournament", type=int)
    fr.add_argument("--moves", type=int, default=20, help="identical opening moves (20)")
    fr.add_argument("--json", action="store_true", help="one JSON object per finding")
    return [d, f, fr]


async def run(args: argparse.Namespace, competition: Competition) -> int:
    """The operator's fair-play commands (server/competition/fairplay.py)."""
    if args.command == "disqualify":
        done = await competition.fairplay.disqualify(args.tournament, args.player, args.reason)
        print(
            f"tournament {done.tournament_id}: {done.player} disqualified"
            + (" (an amendment: ratings computed again)" if done.amendment else "")
        )
        return 0
    limits = Thresholds(opening_moves=args.moves)
    found = await competition.fairplay.report(args.tournament, limits)
    for f in found:
        print(json.dumps(f.as_dict()) if args.json else f.line())
    if not args.json:
        print(f"{len(found)} findings (pointers for the organiser, not verdicts)")
    return 0
