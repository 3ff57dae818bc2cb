"""samedeal-server: serve | migrate | admin grant NAME | tournament create|close|list |
ratings rebuild."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import math
import os
import sys
from datetime import UTC, datetime, timedelta

from server import schedule_cli
from server.competition.catalogue import TournamentSpec
from server.competition.errors import CompetitionError
from server.competition.service import Competition
from server.domain import timing
from server.store import db
from server.store.repository import Store


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="samedeal-server", description=__doc__)
    parser.add_argument(
        "--database-url",
        default=None,
        help=f"SQLAlchemy URL (env SAMEDEAL_DATABASE_URL; default {db.DEFAULT_URL})",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    s = sub.add_parser("serve", help="run the server (migrates first)")
    s.add_argument("--host", default=os.environ.get("SAMEDEAL_HOST", "127.0.0.1"))
    s.add_argument("--port", type=int, default=int(os.environ.get("SAMEDEAL_PORT", "8765")))
    s.add_argument("--no-demo", action="store_true", help="no demo tournament on an empty db")
    s.add_argument(
        "--workers",
        type=int,
        default=1,
        help="processes sharing the port (PostgreSQL only; each is a node of its own)",
    )
    s.add_argument("--reuse-port", action="store_true", help=argparse.SUPPRESS)  # a worker
    m = sub.add_parser("migrate", help="upgrade the database schema to head and exit")
    a = sub.add_parser("admin", help="operator roles")
    a_sub = a.add_subparsers(dest="admin_command", required=True)
    g = a_sub.add_parser("grant", help="give a registered player the admin role")
    g.add_argument("name")
    t = sub.add_parser("tournament", help="operate tournaments from the command line")
    t_sub = t.add_subparsers(dest="tournament_command", required=True)
    c = t_sub.add_parser("create", help="create a tournament (prints its summary)")
    c.add_argument("--name", required=True)
    c.add_argument("--game", choices=["gaps", "klondike"], default="gaps")
    c.add_argument("--options", default="{}", help="JSON, e.g. '{\"redeals\": 2}'")
    c.add_argument("--starts-at", default=None, help="ISO 8601 (default now)")
    c.add_argument("--ends-at", default=None, help="ISO 8601 (default: --hours from start)")
    c.add_argument("--hours", type=float, default=1.0)
    c.add_argument("--time-limit-s", type=int, default=None)
    c.add_argument("--join-until", default=None)
    cl = t_sub.add_parser("close", help="close a tournament now and reveal its seed")
    cl.add_argument("id", type=int)
    ls = t_sub.add_parser("list", help="list tournaments")
    r = sub.add_parser("ratings", help="ratings (docs/COMPETITION.md)")
    r_sub = r.add_subparsers(dest="ratings_command", required=True)
    rb = r_sub.add_parser(
        "rebuild", help="recompute every placing and rating from the closed tournaments"
    )
    for p in (s, m, a, g, t, c, cl, ls, r, rb):
        p.add_argument("--database-url", default=argparse.SUPPRESS)
    schedule_cli.add_parser(sub)  # series (v1.3) hook
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    logging.getLogger("websockets").setLevel(logging.WARNING)  # not a line per connection
    url = db.database_url(getattr(args, "database_url", None))
    if args.command == "serve":
        return _serve(args, url)
    if args.command == "schedule":  # series (v1.3) hook
        return schedule_cli.main(args, url)
    if args.command == "migrate":
        db.migrate(url)
        print("database at head")
        return 0
    if args.command == "tournament" and args.tournament_command == "create":
        try:
            spec = _spec(args)
        except UsageError as exc:
            print(f"samedeal-server: {exc}", file=sys.stderr)
            return 2
        return asyncio.run(_operate(args, url, spec))
    return asyncio.run(_operate(args, url, None))


def _serve(args: argparse.Namespace, url: str) -> int:
    if args.workers < 1:
        print("samedeal-server: --workers is 1 or more", file=sys.stderr)
        return 2
    if args.workers > 1:
        if not url.startswith("postgresql"):
            print(
                "samedeal-server: --workers N > 1 needs PostgreSQL (--database-url "
                "postgresql+asyncpg://...): SQLite serves one process",
                file=sys.stderr,
            )
            return 2
        from server.net.workers import supervise

        db.migrate(url)  # once, before the workers start
        return supervise(url, args.host, args.port, args.workers, not args.no_demo)
    from server.net.app import run, run_loop

    run_loop(run(args.host, args.port, url, demo=not args.no_demo, reuse_port=args.reuse_port))
    return 0


class UsageError(Exception):
    """A bad command-line value: one line, exit status 2."""


def _spec(args: argparse.Namespace) -> TournamentSpec:
    """The tournament the operator asks for, or UsageError naming the bad value."""
    try:
        options = json.loads(args.options)
    except json.JSONDecodeError as exc:
        raise UsageError(f"--options is not JSON: {exc.msg} at character {exc.pos}") from None
    except (ValueError, RecursionError):  # numbers past Python's digit limit; deep nesting
        raise UsageError("--options is not JSON options (too deep or a number too long)") from None
    if not isinstance(options, dict):
        raise UsageError("--options must be a JSON object, e.g. '{\"redeals\": 2}'")
    if not math.isfinite(args.hours) or args.hours <= 0:
        raise UsageError(f"--hours is a positive number of hours, not {args.hours}")
    starts = _when(args.starts_at, "--starts-at") or datetime.now(UTC)
    try:
        ends = _when(args.ends_at, "--ends-at") or starts + timedelta(hours=args.hours)
    except OverflowError:
        raise UsageError("--starts-at plus --hours ends past the year 9999") from None
    return TournamentSpec(
        name=args.name,
        game=args.game,
        options=options,
        ends_at=ends,
        starts_at=starts,
        time_limit_s=args.time_limit_s,
        join_until=_when(args.join_until, "--join-until"),
    )


def _when(text: str | None, flag: str) -> datetime | None:
    if text is None:
        return None
    try:
        return timing.parse_iso(text)
    except (ValueError, OverflowError):
        raise UsageError(f"{flag} is not an ISO 8601 time in range: {text[:40]!r}") from None


async def _operate(args: argparse.Namespace, url: str, spec: TournamentSpec | None) -> int:
    """The operator's commands. They never run the lifecycle clock: only servers do."""
    store = await Store.open(url)
    try:
        if args.command == "ratings":
            return await _ratings_rebuild(store)
        if args.command == "admin":
            if await store.set_admin(args.name):
                print(f"{args.name} is now an admin")
                return 0
            print(f"no player named {args.name!r}", file=sys.stderr)
            return 1
        return await _tournament(args, Competition.build(store), spec)
    except CompetitionError as exc:
        print(f"{exc.code}: {exc.message}", file=sys.stderr)
        return 1
    finally:
        await store.close()


async def _ratings_rebuild(store: Store) -> int:
    from server.competition.ratings import rebuild

    done = await rebuild(store)
    print(
        f"rebuilt from {done.tournaments} closed tournaments: {done.ratings} ratings; "
        + (
            "the stored ratings were exact"
            if not done.changed
            else f"{done.changed} stored rows differed from the recomputation and were replaced"
        )
    )
    return 0


async def _tournament(
    args: argparse.Namespace, competition: Competition, spec: TournamentSpec | None
) -> int:
    from server.net.protocol import summary

    catalogue = competition.catalogue
    if args.tournament_command == "list":
        for t in await catalogue.summaries():
            print(json.dumps(summary(t, await catalogue.revealed_seed(t))))
        return 0
    if args.tournament_command == "close":
        t = await competition.lifecycle.close(args.id)
        print(json.dumps(summary(t, await catalogue.revealed_seed(t))))
        return 0
    assert spec is not None
    t = await catalogue.create(spec)
    print(json.dumps(summary(t, None)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
