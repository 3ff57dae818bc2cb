"""samedeal-server: serve | migrate | admin grant NAME | tournament create|close|list |
ratings rebuild."""

from __future__ import annotations

import argparse
import asyncio
import errno
import json
import logging
import math
import os
import socket
import sys
from datetime import UTC, datetime, timedelta
from typing import NoReturn

from server import fairplay_commands, schedule_cli
from server.competition.beacon import BeaconConfig, config_from
from server.competition.catalogue import TournamentSpec
from server.competition.errors import CompetitionError
from server.competition.service import Competition
from server.domain import timing
from server.net.limits import ServeLimits as ServeLimitsDefaults
from server.net.limits import networks
from server.store import db
from server.store.repository import Store

log = logging.getLogger("samedeal.server")
DB_WAIT_S = 30.0  # serve waits this long for PostgreSQL to come up (env SAMEDEAL_DB_WAIT_S)


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr (and exit status 2)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


def port_number(text: str) -> int:
    """A TCP port, 0 (any free one) to 65535; anything else is a usage error."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a port is a number, not {text[:20]!r}") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"a port is 0 (any free port) to 65535, not {port}")
    return port


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(prog="samedeal-server", description=__doc__)
    parser.add_argument(
        "--database-url",
        default=None,
        help=f"SQLAlchemy URL (env SAMEDEAL_DATABASE_URL; default {db.DEFAULT_URL})",
    )
    sub = parser.add_subparsers(dest="command", required=True, parser_class=OneLineParser)
    s = sub.add_parser("serve", help="run the server (migrates first)")
    s.add_argument("--host", default=os.environ.get("SAMEDEAL_HOST", "127.0.0.1"))
    s.add_argument(
        "--port",
        type=port_number,
        default=os.environ.get("SAMEDEAL_PORT", "8765"),  # a string default is parsed too
        help="TCP port (env SAMEDEAL_PORT; default 8765; 0: any free port)",
    )
    s.add_argument("--no-demo", action="store_true", help="no demo tournament on an empty db")
    s.add_argument(
        "--workers",
        type=int,
        default=1,
        help="processes sharing the port (PostgreSQL only; each is a node of its own)",
    )
    s.add_argument("--reuse-port", action="store_true", help=argparse.SUPPRESS)  # a worker
    _limit_flags(s)
    _beacon_flags(s, relays=True)
    m = sub.add_parser("migrate", help="upgrade the database schema to head and exit")
    a = sub.add_parser("admin", help="operator roles")
    a_sub = a.add_subparsers(dest="admin_command", required=True, parser_class=OneLineParser)
    g = a_sub.add_parser("grant", help="give a registered player the admin role")
    g.add_argument("name")
    t = sub.add_parser("tournament", help="operate tournaments from the command line")
    t_sub = t.add_subparsers(dest="tournament_command", required=True, parser_class=OneLineParser)
    c = t_sub.add_parser("create", help="create a tournament (prints its summary)")
    c.add_argument("--name", required=True)
    c.add_argument("--game", choices=["gaps", "klondike"], default="gaps")
    c.add_argument("--options", default="{}", help="JSON, e.g. '{\"redeals\": 2}'")
    c.add_argument("--starts-at", default=None, help="ISO 8601 (default now)")
    c.add_argument("--ends-at", default=None, help="ISO 8601 (default: --hours from start)")
    c.add_argument("--hours", type=float, default=1.0)
    c.add_argument("--time-limit-s", type=int, default=None)
    c.add_argument("--join-until", default=None)
    c.add_argument(
        "--beacon", metavar="NETWORK", help="take the deal from a drand round (quicknet)"
    )
    _beacon_flags(c, relays=False)
    cl = t_sub.add_parser("close", help="close a tournament now and reveal its seed")
    cl.add_argument("id", type=int)
    ls = t_sub.add_parser("list", help="list tournaments")
    r = sub.add_parser("ratings", help="ratings (docs/COMPETITION.md)")
    r_sub = r.add_subparsers(dest="ratings_command", required=True)
    rb = r_sub.add_parser(
        "rebuild", help="recompute every placing and rating from the closed tournaments"
    )
    for p in (s, m, a, g, t, c, cl, ls, r, rb, *fairplay_commands.parsers(sub)):
        p.add_argument("--database-url", default=argparse.SUPPRESS)
    schedule_cli.add_parser(sub)  # series (v1.3) hook
    return parser


def _env_int(name: str, default: int) -> int:
    text = os.environ.get(name, "")
    return int(text) if text.strip().isdigit() else default


def _limit_flags(s: argparse.ArgumentParser) -> None:
    """serve's limits (README, "Limits"): 0 lifts a limit; each has an environment
    variable as its default, which --workers passes on to its processes."""
    d = ServeLimitsDefaults()
    s.add_argument(
        "--max-connections-per-ip",
        type=int,
        default=_env_int("SAMEDEAL_MAX_CONNECTIONS_PER_IP", d.max_connections_per_ip),
        help=f"open connections from one address (default {d.max_connections_per_ip}; 0: none)",
    )
    s.add_argument(
        "--max-registrations-per-minute",
        type=int,
        default=_env_int("SAMEDEAL_MAX_REGISTRATIONS_PER_MINUTE", d.max_registrations_per_minute),
        help="accounts one address may register in a minute "
        f"(default {d.max_registrations_per_minute}; 0: no limit)",
    )
    s.add_argument(
        "--max-connections",
        type=int,
        default=_env_int("SAMEDEAL_MAX_CONNECTIONS", d.max_connections),
        help=f"open connections in all (default {d.max_connections}, and never more than "
        "the open-files limit allows; 0: only that)",
    )
    s.add_argument(
        "--idle-timeout",
        type=float,
        default=float(os.environ.get("SAMEDEAL_IDLE_TIMEOUT", d.idle_timeout)),
        help="seconds a connection that has neither authenticated nor subscribed may stay "
        f"silent (default {d.idle_timeout:g}; 0: forever)",
    )
    s.add_argument(
        "--allowed-origin",
        action="append",
        default=[o for o in os.environ.get("SAMEDEAL_ALLOWED_ORIGINS", "").split(",") if o],
        help="a web origin (https://host[:port]) besides the server's own whose pages may "
        "open the WebSocket; repeatable (env SAMEDEAL_ALLOWED_ORIGINS, comma-separated)",
    )
    s.add_argument(
        "--trusted-proxy",
        action="append",
        default=[o for o in os.environ.get("SAMEDEAL_TRUSTED_PROXIES", "").split(",") if o],
        help="an address or network (CIDR) of a load balancer in front: its connections "
        "count under the client address its X-Forwarded-For names; repeatable (env "
        "SAMEDEAL_TRUSTED_PROXIES, comma-separated)",
    )
    s.add_argument(
        "--access-log",
        action="store_true",
        default=os.environ.get("SAMEDEAL_ACCESS_LOG", "") not in ("", "0"),
        help="log every HTTP request and WebSocket connection (env SAMEDEAL_ACCESS_LOG=1)",
    )


def _serve_limits(args: argparse.Namespace) -> ServeLimitsDefaults:
    """The limits the flags ask for; UsageError on a negative one."""
    for flag in ("max_connections_per_ip", "max_registrations_per_minute", "max_connections"):
        if getattr(args, flag) < 0:
            raise UsageError(f"--{flag.replace('_', '-')} is 0 (no limit) or more")
    if not math.isfinite(args.idle_timeout) or args.idle_timeout < 0:
        raise UsageError("--idle-timeout is 0 (none) or more seconds")
    try:
        networks(args.trusted_proxy)
    except ValueError as exc:
        raise UsageError(f"--trusted-proxy: {exc}") from None
    return ServeLimitsDefaults(
        trusted_proxies=tuple(args.trusted_proxy),
        max_connections=args.max_connections,
        max_connections_per_ip=args.max_connections_per_ip,
        max_registrations_per_minute=args.max_registrations_per_minute,
        idle_timeout=args.idle_timeout,
        allowed_origins=frozenset(args.allowed_origin),
    )


def _pass_limits_on(args: argparse.Namespace) -> None:
    """--workers starts processes of `serve`: they read the limits from the environment."""
    os.environ["SAMEDEAL_MAX_CONNECTIONS_PER_IP"] = str(args.max_connections_per_ip)
    os.environ["SAMEDEAL_MAX_REGISTRATIONS_PER_MINUTE"] = str(args.max_registrations_per_minute)
    os.environ["SAMEDEAL_MAX_CONNECTIONS"] = str(args.max_connections)
    os.environ["SAMEDEAL_IDLE_TIMEOUT"] = str(args.idle_timeout)
    os.environ["SAMEDEAL_ALLOWED_ORIGINS"] = ",".join(args.allowed_origin)
    os.environ["SAMEDEAL_TRUSTED_PROXIES"] = ",".join(args.trusted_proxy)
    os.environ["SAMEDEAL_ACCESS_LOG"] = "1" if args.access_log else ""


def _beacon_flags(p: argparse.ArgumentParser, relays: bool) -> None:
    """--beacon-networks FILE (and for serve --beacon-relay URL, repeatable); their defaults
    come from SAMEDEAL_BEACON_NETWORKS and SAMEDEAL_BEACON_RELAYS (space-separated), which
    is also how serve --workers hands them to its workers."""
    p.add_argument(
        "--beacon-networks",
        metavar="FILE",
        default=os.environ.get("SAMEDEAL_BEACON_NETWORKS"),
        help="JSON drand networks beyond quicknet and default (docs/GENERATOR.md)",
    )
    if relays:
        p.add_argument(
            "--beacon-relay",
            metavar="URL",
            action="append",
            default=None,
            help="a drand HTTP relay to fetch beacon rounds from (repeatable; default: the "
            "network's public relays)",
        )


def _beacon_config(args: argparse.Namespace) -> BeaconConfig:
    relays = args.beacon_relay
    if relays is None:
        relays = os.environ.get("SAMEDEAL_BEACON_RELAYS", "").split()
    try:
        return config_from(relays, args.beacon_networks)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def main(argv: list[str] | None = None) -> int:
    """Run one command. Whatever fails says so in one line on stderr, never a traceback
    (SAMEDEAL_DEBUG=1 shows the traceback of an unexpected error)."""
    args = build_parser().parse_args(argv)
    serving = args.command == "serve"
    logging.basicConfig(
        level=logging.INFO if serving else logging.WARNING,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    logging.getLogger("websockets").setLevel(logging.WARNING)  # not a line per connection
    access = getattr(args, "access_log", False)  # per request and connection: off by default
    logging.getLogger("samedeal.access").setLevel(logging.INFO if access else logging.WARNING)
    logging.getLogger("alembic").setLevel(logging.WARNING)  # not a line per migration step
    given = db.database_url(getattr(args, "database_url", None))
    try:
        url = db.check_url(given)
        return _command(args, url, given)
    except db.BadDatabaseUrl as exc:
        return _fail(str(exc), 2)
    except KeyboardInterrupt:
        return _fail("interrupted", 130)
    except Exception as exc:
        if os.environ.get("SAMEDEAL_DEBUG"):
            raise
        return _fail(_unexpected(exc, url if "url" in locals() else given), 1)


def _fail(message: str, code: int) -> int:
    print(f"samedeal-server: {message}", file=sys.stderr)
    return code


def _unexpected(exc: BaseException, url: str) -> str:
    """One line for an error nothing else caught: a database's own, or a bug."""
    module = type(exc).__module__.split(".")[0]
    first = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:200]
    if module in ("sqlalchemy", "asyncpg", "sqlite3", "aiosqlite", "alembic"):
        return f"the database ({db.describe(url, url)}) failed: {first}"
    return f"unexpected error ({type(exc).__name__}: {first}); please report it"


def _command(args: argparse.Namespace, url: str, given: str) -> int:
    if args.command == "serve":
        return _serve(args, url, given)
    try:
        db.wait_reachable(url, 0)
    except ConnectionError as exc:
        return _fail(str(exc), 1)
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
            return _fail(str(exc), 2)
        return asyncio.run(_operate(args, url, spec))
    return asyncio.run(_operate(args, url, None))


def _listen_check(host: str, port: int) -> str | None:
    """Why the server could not listen on host:port (None: it can), before it opens the
    database: a port in use or a host that is not this machine's is one line, at once."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror:
        return f"--host {host!r}: no such host"
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                return f"cannot listen on {host}:{port}: the port is in use (another server?)"
            return f"cannot listen on {host}:{port}: {exc.strerror or exc}"
    return None


def _db_wait_s() -> float:
    try:
        return max(0.0, float(os.environ.get("SAMEDEAL_DB_WAIT_S", DB_WAIT_S)))
    except ValueError:
        return DB_WAIT_S


def _announce(host: str, bound: int) -> None:
    shown = "127.0.0.1" if host in ("0.0.0.0", "") else f"[{host}]" if ":" in host else host
    log.info("the page: http://%s:%s/ (players and watchers open it in a browser)", shown, bound)


def _serve(args: argparse.Namespace, url: str, given: str) -> int:
    try:
        beacon = _beacon_config(args)
    except UsageError as exc:
        return _fail(str(exc), 2)
    if beacon.relays:  # for the workers (they read these as their flags' defaults)
        os.environ["SAMEDEAL_BEACON_RELAYS"] = " ".join(beacon.relays)
    if args.beacon_networks:
        os.environ["SAMEDEAL_BEACON_NETWORKS"] = args.beacon_networks
    if args.workers < 1:
        return _fail("--workers is 1 or more", 2)
    try:
        limits = _serve_limits(args)
    except UsageError as exc:
        return _fail(str(exc), 2)
    if args.workers > 1 and not url.startswith("postgresql"):
        return _fail(
            "--workers N > 1 needs PostgreSQL (--database-url postgresql+asyncpg://...): "
            "SQLite serves one process",
            2,
        )
    if not args.reuse_port and (why := _listen_check(args.host, args.port)):
        return _fail(why, 1)
    try:
        db.wait_reachable(url, _db_wait_s())
    except ConnectionError as exc:
        return _fail(str(exc), 1)
    log.info("database: %s", db.describe(url, given))
    if args.workers > 1:
        from server.net.workers import supervise

        db.migrate(url)  # once, before the workers start
        _pass_limits_on(args)
        return supervise(url, args.host, args.port, args.workers, not args.no_demo)
    from server.net.app import run, run_loop

    try:
        run_loop(
            run(
                args.host,
                args.port,
                url,
                demo=not args.no_demo,
                reuse_port=args.reuse_port,
                serve_limits=limits,
                beacon=beacon,
                ready=lambda bound: _announce(args.host, bound),
            )
        )
    except OSError as exc:
        if exc.errno != errno.EADDRINUSE:
            raise
        return _fail(f"cannot listen on {args.host}:{args.port}: the port is in use", 1)
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
    beacon = {"network": args.beacon} if args.beacon else None
    try:
        schedule_cli.beacon_config(beacon, args.beacon_networks)  # a network it knows
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    return TournamentSpec(
        name=args.name,
        game=args.game,
        options=options,
        ends_at=ends,
        starts_at=starts,
        time_limit_s=args.time_limit_s,
        join_until=_when(args.join_until, "--join-until"),
        beacon=beacon,
    )


def _beacon_config_of_file(path: str) -> BeaconConfig:
    try:
        return config_from([], path)
    except ValueError as exc:
        raise CompetitionError("bad_request", str(exc)) from None


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
        if args.command in ("disqualify", "fairplay"):
            return await fairplay_commands.run(args, Competition.build(store))
        if args.command == "admin":
            if await store.set_admin(args.name):
                print(f"{args.name} is now an admin")
                return 0
            return _fail(f"no player named {args.name!r} (register first)", 1)
        competition = Competition.build(store)
        if getattr(args, "beacon_networks", None):
            competition.catalogue.beacon_config = _beacon_config_of_file(args.beacon_networks)
        return await _tournament(args, competition, spec)
    except CompetitionError as exc:
        return _fail(f"{exc.code}: {exc.message}", 1)
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
        from server.competition.ratings import settle

        t = await competition.lifecycle.close(args.id)
        await settle()  # a rating that waited for another taker's turn (ratings.py)
        print(json.dumps(summary(t, await catalogue.revealed_seed(t))))
        return 0
    assert spec is not None
    t = await catalogue.create(spec)
    print(json.dumps(summary(t, None)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
