"""`samedeal create`: the flags turned into a create_tournament message, checked before
anything is sent; a bad value is a ValueError whose message names the flag (one line)."""

from __future__ import annotations

import argparse
import json
import math
from datetime import UTC, datetime, timedelta
from typing import Any

from client_cli.verify import read_networks
from server.audit.beacon import BeaconError, network_named
from server.audit.untrusted import Unreadable
from server.domain.schedule_options import with_variant


def _when(text: str, flag: str) -> datetime:
    """An ISO 8601 time (a time without a zone is UTC), or ValueError naming the flag."""
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        raise ValueError(
            f"{flag} is not an ISO 8601 time (e.g. 2026-12-01T09:00+01:00): {text[:40]!r}"
        ) from None
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def _options(text: str) -> dict[str, Any]:
    try:
        options = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(
            f"--options is not JSON ({exc.msg} at character {exc.pos}); e.g. "
            "'{\"redeals\": 2}' (keys in double quotes)"
        ) from None
    except (ValueError, RecursionError):
        raise ValueError("--options is not JSON options (too deep or a number too long)") from None
    if not isinstance(options, dict):
        raise ValueError("--options must be a JSON object, e.g. '{\"redeals\": 2}'")
    return options


def create_message(args: argparse.Namespace) -> dict[str, Any]:
    """The create_tournament message the flags ask for, or ValueError naming the flag."""
    if not math.isfinite(args.hours) or args.hours <= 0:
        raise ValueError(f"--hours is a positive number of hours, not {args.hours}")
    if args.time_limit_s is not None and args.time_limit_s <= 0:
        raise ValueError("--time-limit-s is a positive number of seconds")
    options = with_variant(_options(args.options), args.game, args.variant)
    starts = _when(args.starts_at, "--starts-at") if args.starts_at else datetime.now(UTC)
    try:
        ends = (
            _when(args.ends_at, "--ends-at")
            if args.ends_at
            else starts + timedelta(hours=args.hours)
        )
    except OverflowError:
        raise ValueError("--starts-at plus --hours ends past the year 9999") from None
    msg: dict[str, Any] = {
        "name": args.name,
        "game": args.game,
        "options": options,
        "ends_at": ends.isoformat(),
    }
    if args.starts_at:  # otherwise the server's own now
        msg["starts_at"] = starts.isoformat()
    if args.time_limit_s:
        msg["time_limit_s"] = args.time_limit_s
    if args.join_until:
        msg["join_until"] = _when(args.join_until, "--join-until").isoformat()
    beacon = beacon_option(args.beacon, args.beacon_networks)
    if beacon is not None:
        msg["beacon"] = beacon
    return msg


def beacon_option(name: str | None, networks_file: str | None) -> dict[str, str] | None:
    """The `beacon` option --beacon NETWORK asks for: a built-in network or one of the
    --beacon-networks file's (the server refuses one it does not know, too); ValueError
    in one line otherwise."""
    if name is None:
        return None
    try:
        return {"network": network_named(name, read_networks(networks_file)).name}
    except (Unreadable, BeaconError) as exc:
        raise ValueError(str(exc)) from None
