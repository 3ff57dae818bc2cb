"""samedeal-server's command line: the parser and its flags, usage errors, one-line
failures (the commands themselves: serve_command.py, operator_commands.py,
fairplay_commands.py, schedule_cli.py)."""

from __future__ import annotations

import argparse
import os
import sys
from typing import NoReturn

from server import fairplay_commands, schedule_cli
from server.domain.schedule_options import add_variant_flag
from server.net.limits import ServeLimits as ServeLimitsDefaults
from server.store import db

DESCRIPTION = (  # --help's first lines
    "samedeal-server: serve | migrate | admin grant NAME | tournament create|close|list |\n"
    "ratings rebuild."
)


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr (and exit status 2)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


class UsageError(Exception):
    """A bad command-line value: one line, exit status 2."""


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
    parser = OneLineParser(prog="samedeal-server", description=DESCRIPTION)
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
    add_variant_flag(c)
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
        "--link-code-ttl",
        type=int,
        metavar="S",
        default=_env_int("SAMEDEAL_LINK_CODE_TTL", d.link_code_ttl_s),
        help=f"seconds a device link's codes are valid (default {d.link_code_ttl_s})",
    )
    s.add_argument(
        "--access-log",
        action="store_true",
        default=os.environ.get("SAMEDEAL_ACCESS_LOG", "") not in ("", "0"),
        help="log every HTTP request and WebSocket connection (env SAMEDEAL_ACCESS_LOG=1)",
    )


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


def fail(message: str, code: int) -> int:
    print(f"samedeal-server: {message}", file=sys.stderr)
    return code
