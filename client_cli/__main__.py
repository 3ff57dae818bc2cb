"""samedeal: the command-line client for players, organisers and auditors."""

from __future__ import annotations

import argparse
import os
import sys
from typing import NoReturn

from client_cli import config, fairplay, ratings, schedule_cmd, verify
from server.domain.schedule_options import add_beacon_flags, add_variant_flag


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr (and exit status 2)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(prog="samedeal", description=__doc__)
    parser.add_argument(
        "--server",
        default=None,
        help=f"server URL (env SAMEDEAL_SERVER; default {config.DEFAULT_SERVER})",
    )
    sub = parser.add_subparsers(dest="command", required=True, parser_class=OneLineParser)
    p = sub.add_parser(
        "register",
        help="create a player and save its token",
        description="Create a player and save its token (the only key to the player: keep "
        "a copy of the tokens file it names). A token already saved for the server is not "
        "replaced without --replace.",
    )
    p.add_argument("name")
    p.add_argument("--replace", action="store_true", help="replace the token already saved")
    p = sub.add_parser("tournaments", help="list tournaments")
    p.add_argument("--json", action="store_true")
    p = sub.add_parser("play", help="play a tournament in the terminal")
    p.add_argument("id", type=int)
    p = sub.add_parser(
        "standings",
        help="show standings (--follow: live, --all: every row)",
        description="Without options: one window, the top rows and the rows around your "
        "own (the saved player's; anonymous without a token: the top only). --follow: live; "
        "in a terminal a viewer that also pages through the whole table (PgUp/PgDn, "
        "Home/End, m: your page, q: quit), otherwise the window redrawn (--json: one line "
        "per message) until the close. --all: every row, fetched 100 at a time.",
    )
    p.add_argument("id", type=int)
    how = p.add_mutually_exclusive_group()
    how.add_argument("--follow", action="store_true", help="live, until the close (or q)")
    how.add_argument("--all", action="store_true", help="the whole table, page by page")
    p.add_argument("--json", action="store_true")
    p.add_argument("--top", type=int, metavar="N", help="rows from the top (server default 10)")
    p.add_argument(
        "--around", type=int, metavar="K", help="rows each side of yours (server default 5)"
    )
    p = sub.add_parser(
        "record",
        help="fetch a player's record (after the close)",
        description="Fetch a player's record. When a receipt is kept for that player in "
        "that tournament on this server, say on stderr whether the acknowledged log is in "
        "the record unchanged (exit 1 when it is not).",
    )
    p.add_argument("id", type=int)
    p.add_argument("player")
    p.add_argument("-o", "--output")
    p = sub.add_parser(
        "bundle",
        help="fetch a tournament's bundle (after the close)",
        description="Fetch a tournament's bundle. For every receipt kept in that tournament "
        "on this server, say on stderr whether the acknowledged log is in the bundle "
        "unchanged (exit 1 when one is not).",
    )
    p.add_argument("id", type=int)
    p.add_argument("-o", "--output")
    p = sub.add_parser(
        "verify",
        help="check a record or bundle offline (exit 0 ok, 1 differs, 2 unreadable, 3 a bug)",
        description="Check a record or bundle offline: the seed against the commitment, "
        "every action's replay, the claimed results, the log hashes and log root, and for a "
        "bundle the standings. With --receipt, also that a log you saw acknowledged is in it "
        "unchanged. Exit 0 when all holds, 1 at the first difference, 2 when the file cannot "
        "be read as a record or bundle (or the arguments do not fit it).",
    )
    p.add_argument("file")
    p.add_argument(
        "--receipt", metavar="SEQ:HASH", type=verify.parse_receipt, help=verify.RECEIPT_HELP
    )
    p.add_argument("--player", metavar="NAME", help=verify.PLAYER_HELP)
    p.add_argument("--beacon-networks", metavar="FILE", help=verify.NETWORKS_HELP)
    p = sub.add_parser("create", help="create a tournament (admin)")
    p.add_argument("--name", required=True)
    p.add_argument("--game", choices=["gaps", "klondike"], default="gaps")
    p.add_argument("--options", default="{}", help="JSON, e.g. '{\"redeals\": 2}'")
    add_variant_flag(p)
    p.add_argument("--starts-at")
    p.add_argument("--ends-at")
    p.add_argument("--hours", type=float, default=1.0)
    p.add_argument("--time-limit-s", type=int)
    p.add_argument("--join-until")
    add_beacon_flags(p)
    p = sub.add_parser("close", help="close a tournament now (admin)")
    p.add_argument("id", type=int)
    p = sub.add_parser("bot", help="run bot players in a tournament")
    p.add_argument("--tournament", type=int, required=True)
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--strategy", choices=["random", "greedy"], default="greedy")
    p.add_argument("--think-ms", type=int, default=0)
    ratings.add_commands(sub)
    fairplay.add_parsers(sub)  # disqualify, fairplay (admin)
    schedule_cmd.add_parser(sub)  # series (v1.3) hook
    return parser


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
    if args.command == "verify":
        return verify.run(
            args.file, receipt=args.receipt, player=args.player, networks=args.beacon_networks
        )
    try:
        args.server = config.server_url(args.server)
    except config.BadServer as exc:
        print(f"samedeal: {exc}", file=sys.stderr)
        return 2
    from client_cli import commands

    if args.command == "play":
        return commands.play(args, sys.stdout)
    return commands.dispatch(args, sys.stdout)


if __name__ == "__main__":
    sys.exit(main())
