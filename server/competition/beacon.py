"""A tournament's public beacon: which drand round it takes, when it is due, fetching it
from the network's relays (several, each with a timeout, failing over) and verifying it
before use, and when a tournament is void for want of it (RNG.md, "Public beacon").

The policy is here; the HTTP itself is an injected `Fetch` (server/competition/relays.py
on a real network, a local relay or a fake in tests); the BLS verification is
server/audit/beacon.py's, the same as `samedeal verify` runs.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from server.audit import beacon
from server.audit.beacon import BeaconError, Network, Round
from server.competition.errors import CompetitionError

log = logging.getLogger("samedeal.beacon")

AFTER_CREATION = timedelta(seconds=30)  # the round comes at least this long after creation
VOID_AFTER = timedelta(minutes=10)  # no verified round this long after it was due: void
RELAY_TIMEOUT_S = 5.0  # one relay's answer, at most


class NotYet(Exception):
    """The relay has not produced the round yet (HTTP 404)."""


# GET RELAY/CHAIN_HASH/public/ROUND -> the JSON body; NotYet for a 404; any other
# exception (OSError, TimeoutError, ValueError...) for a relay that is down or says nonsense.
Fetch = Callable[[str, float], Awaitable[Any]]


@dataclass(frozen=True, slots=True)
class Planned:
    """The round a tournament will take, as published at creation."""

    network: str
    chain_hash: str
    round: int

    def as_dict(self) -> dict[str, Any]:
        return {"network": self.network, "chain_hash": self.chain_hash, "round": self.round}


def plan(
    networks: Mapping[str, Network], spec: Any, created_at: datetime, starts_at: datetime
) -> Planned:
    """The round for a `beacon` option ({"network": N}): the first round of N whose time
    is at or after both created_at + 30 s and starts_at; `bad_request` for anything else."""
    if not isinstance(spec, dict) or set(spec) != {"network"}:
        raise CompetitionError("bad_request", 'beacon is {"network": NAME}')
    name = spec["network"]
    net = networks.get(name) if isinstance(name, str) else None
    if net is None:
        raise CompetitionError(
            "bad_request", f"unknown beacon network {name!r}; known: {sorted(networks)}"
        )
    earliest = max(created_at + AFTER_CREATION, starts_at)
    return Planned(net.name, net.chain_hash, net.first_round_at(earliest.timestamp()))


def due_at(net: Network, round_: int) -> datetime:
    """When the round is produced."""
    from server.domain import timing

    return timing.parse_iso(timing.iso_of_epoch_ms(net.round_time(round_) * 1000))


def void_at(net: Network, round_: int, starts_at: datetime) -> datetime:
    """When a tournament still without its verified round is void: 10 minutes after the
    later of the round's time and the start."""
    return max(due_at(net, round_), starts_at) + VOID_AFTER


def relays_for(net: Network, configured: Sequence[str]) -> tuple[str, ...]:
    """The relays to ask: those configured (--beacon-relay), else the network's own."""
    return tuple(u.rstrip("/") for u in configured) or net.relays


async def fetch_round(
    net: Network,
    round_: int,
    relays: Sequence[str],
    fetch: Fetch,
    timeout_s: float = RELAY_TIMEOUT_S,
) -> Round | None:
    """Round `round_`, verified, from the first relay that serves it correctly, trying them
    in order; None when none does yet (not produced, down, slow, or wrong: a wrong
    signature is refused and the next relay asked). Never raises for a relay's fault."""
    for relay in relays:
        url = f"{relay}/{net.chain_hash}/public/{round_}"
        try:
            body = await asyncio.wait_for(fetch(url, timeout_s), timeout_s)
            r = beacon.round_from_json(net, body, round_)
            beacon.verify_round(net, r)
        except NotYet:
            log.info("beacon: %s has no round %s yet", relay, round_)
            continue
        except BeaconError as exc:
            log.warning("beacon: %s served round %s wrongly: %s", relay, round_, exc)
            continue
        except (TimeoutError, OSError, ValueError) as exc:
            log.warning("beacon: %s failed for round %s: %r", relay, round_, exc)
            continue
        return r
    return None
