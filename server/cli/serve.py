"""`samedeal-server serve`: its flags (limits, beacon), checks before the database is
opened (the port, the database reachable), then one process or --workers N. The limits'
defaults come from the environment, which is also how --workers hands them on."""

from __future__ import annotations

import argparse
import errno
import logging
import math
import os
import socket
from typing import Any

from server.cli.common import Database, Subparsers, UsageError, command, fail
from server.competition.beacon_policy import BeaconConfig, config_from
from server.domain.accounts import BadOrigin, public_origin
from server.i18n.terminal import said_error, t
from server.net.limits import ServeLimits as ServeLimitsDefaults
from server.net.limits import networks
from server.store import db

log = logging.getLogger("samedeal.server")
DB_WAIT_S = 30.0  # serve waits this long for PostgreSQL to come up (env SAMEDEAL_DB_WAIT_S)


def add_parser(sub: Subparsers[Any]) -> None:
    s = command(sub, "serve", run, help=t("server.serve.help"))
    host = os.environ.get("SAMEDEAL_HOST", "127.0.0.1")
    s.add_argument("--host", default=host, help=t("server.serve.host_help"))
    s.add_argument(
        "--port",
        type=port_number,
        default=os.environ.get("SAMEDEAL_PORT", "8765"),  # a string default is parsed too
        help=t("server.serve.port_help"),
    )
    s.add_argument("--no-demo", action="store_true", help=t("server.serve.no_demo_help"))
    s.add_argument(
        "--workers",
        type=int,
        default=1,
        help=t("server.serve.workers_help"),
    )
    s.add_argument("--reuse-port", action="store_true", help=argparse.SUPPRESS)  # a worker
    _limit_flags(s)
    s.add_argument(
        "--beacon-networks",
        metavar="FILE",
        default=os.environ.get("SAMEDEAL_BEACON_NETWORKS"),
        help=t("server.serve.beacon_networks_help"),
    )
    s.add_argument(
        "--beacon-relay",
        metavar="URL",
        action="append",
        default=None,
        help=t("server.serve.beacon_relay_help"),
    )


def run(args: argparse.Namespace, database: Database) -> int:
    """Serve until stopped: one process, or --workers N sharing the port. Flags, the
    port and the database are checked first, each failure one line."""
    url, given = database.url, database.given
    try:
        beacon = _beacon_config(args)
    except UsageError as exc:
        return fail(str(exc), 2)
    if beacon.relays:  # for the workers (they read these as their flags' defaults)
        os.environ["SAMEDEAL_BEACON_RELAYS"] = " ".join(beacon.relays)
    if args.beacon_networks:
        os.environ["SAMEDEAL_BEACON_NETWORKS"] = args.beacon_networks
    if args.workers < 1:
        return fail(t("server.serve.workers_one"), 2)
    try:
        limits = _serve_limits(args)
    except UsageError as exc:
        return fail(str(exc), 2)
    if args.workers > 1 and not url.startswith("postgresql"):
        return fail(t("server.serve.workers_postgres"), 2)
    if not args.reuse_port and (why := _listen_check(args.host, args.port)):
        return fail(why, 1)
    try:
        db.wait_reachable(url, _db_wait_s())
    except ConnectionError as exc:
        return fail(said_error(exc), 1)
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
        return fail(t("server.serve.port_in_use", host=args.host, port=args.port), 1)
    return 0


def _serve_limits(args: argparse.Namespace) -> ServeLimitsDefaults:
    """The limits the flags ask for; UsageError on a negative one."""
    limit_flags = ("max_connections_per_ip", "max_registrations_per_minute", "max_connections")
    for flag in (*limit_flags, "max_sign_ins_per_minute"):
        if getattr(args, flag) < 0:
            raise UsageError(
                t("server.serve.limit_zero_or_more", flag=f"--{flag.replace('_', '-')}")
            )
    if args.link_code_ttl < 1:
        raise UsageError(t("server.serve.link_code_ttl_one"))
    if not math.isfinite(args.idle_timeout) or args.idle_timeout < 0:
        raise UsageError(t("server.serve.idle_timeout_zero"))
    for proxy in args.trusted_proxy:
        try:
            networks([proxy])
        except ValueError:
            raise UsageError(t("server.serve.trusted_proxy_bad", value=repr(proxy[:60]))) from None
    try:
        origin = None if not args.public_origin else public_origin(args.public_origin)
    except BadOrigin as exc:
        raise UsageError(t("server.serve.public_origin_bad", why=said_error(exc))) from None
    return ServeLimitsDefaults(
        trusted_proxies=tuple(args.trusted_proxy),
        max_connections=args.max_connections,
        max_connections_per_ip=args.max_connections_per_ip,
        max_registrations_per_minute=args.max_registrations_per_minute,
        idle_timeout=args.idle_timeout,
        allowed_origins=frozenset(args.allowed_origin),
        link_code_ttl_s=args.link_code_ttl,
        max_sign_ins_per_minute=args.max_sign_ins_per_minute,
        public_origin=origin,
    )


def _pass_limits_on(args: argparse.Namespace) -> None:
    """--workers starts processes of `serve`: they read the limits from the environment."""
    os.environ["SAMEDEAL_MAX_CONNECTIONS_PER_IP"] = str(args.max_connections_per_ip)
    os.environ["SAMEDEAL_MAX_REGISTRATIONS_PER_MINUTE"] = str(args.max_registrations_per_minute)
    os.environ["SAMEDEAL_MAX_CONNECTIONS"] = str(args.max_connections)
    os.environ["SAMEDEAL_IDLE_TIMEOUT"] = str(args.idle_timeout)
    os.environ["SAMEDEAL_ALLOWED_ORIGINS"] = ",".join(args.allowed_origin)
    os.environ["SAMEDEAL_TRUSTED_PROXIES"] = ",".join(args.trusted_proxy)
    os.environ["SAMEDEAL_LINK_CODE_TTL"] = str(args.link_code_ttl)
    os.environ["SAMEDEAL_MAX_SIGN_INS_PER_MINUTE"] = str(args.max_sign_ins_per_minute)
    os.environ["SAMEDEAL_PUBLIC_ORIGIN"] = args.public_origin or ""
    os.environ["SAMEDEAL_ACCESS_LOG"] = "1" if args.access_log else ""


def _beacon_config(args: argparse.Namespace) -> BeaconConfig:
    relays = args.beacon_relay
    if relays is None:
        relays = os.environ.get("SAMEDEAL_BEACON_RELAYS", "").split()
    try:
        return config_from(relays, args.beacon_networks)
    except ValueError as exc:
        raise UsageError(said_error(exc)) from None


def _listen_check(host: str, port: int) -> str | None:
    """Why the server could not listen on host:port (None: it can), before it opens the
    database: a port in use or a host that is not this machine's is one line, at once."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror:
        return t("server.serve.no_such_host", host=repr(host))
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                return t("server.serve.port_in_use", where=f"{host}:{port}")
            return t("server.serve.cannot_listen", where=f"{host}:{port}", why=exc.strerror or exc)
    return None


def _db_wait_s() -> float:
    try:
        return max(0.0, float(os.environ.get("SAMEDEAL_DB_WAIT_S", DB_WAIT_S)))
    except ValueError:
        return DB_WAIT_S


def _announce(host: str, bound: int) -> None:
    shown = "127.0.0.1" if host in ("0.0.0.0", "") else f"[{host}]" if ":" in host else host
    log.info("the page: http://%s:%s/ (players and watchers open it in a browser)", shown, bound)


def port_number(text: str) -> int:
    """A TCP port, 0 (any free one) to 65535; anything else is a usage error."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            t("server.serve.port_number", text=repr(text[:20]))
        ) from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(t("server.serve.port_range", port=port))
    return port


def _env_int(name: str, default: int) -> int:
    text = os.environ.get(name, "")
    return int(text) if text.strip().isdigit() else default


def _limit_flags(s: argparse.ArgumentParser) -> None:
    """serve's limits (docs/LIMITS.md): 0 lifts a limit; each has an environment
    variable as its default, which --workers passes on to its processes."""
    d = ServeLimitsDefaults()
    s.add_argument(
        "--max-connections-per-ip",
        type=int,
        default=_env_int("SAMEDEAL_MAX_CONNECTIONS_PER_IP", d.max_connections_per_ip),
        help=t("server.serve.max_connections_per_ip_help", default=d.max_connections_per_ip),
    )
    s.add_argument(
        "--max-registrations-per-minute",
        type=int,
        default=_env_int("SAMEDEAL_MAX_REGISTRATIONS_PER_MINUTE", d.max_registrations_per_minute),
        help=t("server.serve.max_registrations_help", default=d.max_registrations_per_minute),
    )
    s.add_argument(
        "--max-connections",
        type=int,
        default=_env_int("SAMEDEAL_MAX_CONNECTIONS", d.max_connections),
        help=t("server.serve.max_connections_help", default=d.max_connections),
    )
    s.add_argument(
        "--idle-timeout",
        type=float,
        default=float(os.environ.get("SAMEDEAL_IDLE_TIMEOUT", d.idle_timeout)),
        help=t("server.serve.idle_timeout_help", default=f"{d.idle_timeout:g}"),
    )
    s.add_argument(
        "--allowed-origin",
        action="append",
        default=[o for o in os.environ.get("SAMEDEAL_ALLOWED_ORIGINS", "").split(",") if o],
        help=t("server.serve.allowed_origin_help"),
    )
    s.add_argument(
        "--trusted-proxy",
        action="append",
        default=[o for o in os.environ.get("SAMEDEAL_TRUSTED_PROXIES", "").split(",") if o],
        help=t("server.serve.trusted_proxy_help"),
    )
    s.add_argument(
        "--link-code-ttl",
        type=int,
        metavar="S",
        default=_env_int("SAMEDEAL_LINK_CODE_TTL", d.link_code_ttl_s),
        help=t("server.serve.link_code_ttl_help", default=d.link_code_ttl_s),
    )
    s.add_argument(
        "--max-sign-ins-per-minute",
        type=int,
        default=_env_int("SAMEDEAL_MAX_SIGN_INS_PER_MINUTE", d.max_sign_ins_per_minute),
        help=t("server.serve.max_sign_ins_help", default=d.max_sign_ins_per_minute),
    )
    s.add_argument(
        "--public-origin",
        metavar="URL",
        default=os.environ.get("SAMEDEAL_PUBLIC_ORIGIN") or None,
        help=t("server.serve.public_origin_help"),
    )
    s.add_argument(
        "--access-log",
        action="store_true",
        default=os.environ.get("SAMEDEAL_ACCESS_LOG", "") not in ("", "0"),
        help=t("server.serve.access_log_help"),
    )
