"""A tournament's public beacon: which drand round it takes, when it is due, fetching it
from the network's relays (several, each with a timeout, failing over) and verifying it
before use, and when a tournament is void for want of it (RNG.md, "Public beacon").

The policy is here; the HTTP itself is an injected `Fetch` (server/competition/drand_http.py
on a real network, a local relay or a fake in tests); the BLS verification is
server/audit/drand.py's, the same as `samedeal verify` runs.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from server.audit import drand
from server.audit.drand import BeaconError, Network, Round
from server.competition.errors import CompetitionError
from server.i18n.said import Said, said

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
    networks: Mapping[str, Network],
    spec: Any,
    created_at: datetime,
    starts_at: datetime,
    ends_at: datetime | None = None,
) -> Planned:
    """The round for a `beacon` option ({"network": N}): the first round of N whose time
    is at or after both created_at + 30 s and starts_at; `bad_request` for anything else,
    or when that round would come at or after `ends_at` (nothing left to play)."""
    net = network_of(networks, spec)
    earliest = max(created_at + AFTER_CREATION, starts_at)
    round_ = net.first_round_at(earliest.timestamp())
    if ends_at is not None and net.round_time(round_) >= ends_at.timestamp():
        raise CompetitionError(
            "bad_request", f"the beacon round {round_} of {net.name} comes at or after ends_at"
        )
    return Planned(net.name, net.chain_hash, round_)


def network_of(networks: Mapping[str, Network], spec: Any) -> Network:
    """The network a `beacon` option ({"network": N}) names; `bad_request` for anything
    else (a tournament's option and a schedule's alike)."""
    if not isinstance(spec, dict) or set(spec) != {"network"}:
        raise CompetitionError("bad_request", 'beacon is {"network": NAME}')
    name = spec["network"]
    net = networks.get(name) if isinstance(name, str) else None
    if net is None:
        raise CompetitionError(
            "bad_request", f"unknown beacon network {name!r}; known: {sorted(networks)}"
        )
    return net


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
            r = drand.round_from_json(net, body, round_)
            drand.verify_round(net, r)
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


@dataclass(frozen=True)
class BeaconConfig:
    """What a server knows of beacons: networks (the built-in ones, plus
    --beacon-networks), the relays to ask (--beacon-relay; none: each network's own),
    how to fetch, and each relay's timeout."""

    networks: Mapping[str, Network] = field(default_factory=lambda: drand.BUILT_IN)
    relays: tuple[str, ...] = ()
    fetch: Fetch | None = None  # None: competition/drand_http.fetch_json
    timeout_s: float = RELAY_TIMEOUT_S
    retry_s: float = 1.0  # between two rounds of asking the relays

    def network(self, planned: Mapping[str, Any]) -> Network | None:
        return self.networks.get(str(planned.get("network")))

    def dealing_seed(
        self, tournament_id: int, planned: Mapping[str, Any] | None, seed: bytes
    ) -> bytes:
        """The seed the tournament's labels read: the seed itself without a beacon, the
        deal seed of its verified round with one; `not_open` while it is not verified."""
        if planned is None:
            return seed
        net = self.network(planned)
        signature = planned.get("signature")
        if net is None or not isinstance(signature, str):
            raise CompetitionError(
                "not_open", f"tournament {tournament_id} awaits its beacon round"
            )
        prev = planned.get("previous_signature")
        r = Round(
            int(planned["round"]),
            bytes.fromhex(signature),
            bytes.fromhex(prev) if isinstance(prev, str) else None,
        )
        return drand.deal_seed(seed, net, r)


def verified_beacon(planned: Mapping[str, Any], r: Round) -> dict[str, Any]:
    """The tournament's beacon once round r is verified: the plan and its signature(s)."""
    out = {**planned, "signature": r.signature.hex()}
    if r.previous_signature is not None:
        out["previous_signature"] = r.previous_signature.hex()
    return out


def config_from(relays: Sequence[str], networks_file: str | None) -> BeaconConfig:
    """The server's beacon configuration from --beacon-relay and --beacon-networks;
    ValueError saying what is wrong (an unreadable file, a wrong network, a relay that is
    not an http(s) URL)."""
    for url in relays:
        if not url.startswith(("http://", "https://")):
            raise ValueError(said("server.beacon_config.relay", url=repr(url)))
    networks: Mapping[str, Network] = drand.BUILT_IN
    if networks_file is not None:
        import json

        try:
            with open(networks_file, "rb") as f:
                networks = drand.networks_from_json(json.loads(f.read(1 << 20)))
        except OSError as exc:  # the C library's words (strerror), as every file error
            why = exc.strerror or str(exc)
            raise ValueError(_file_fault(networks_file, why)) from None
        except (ValueError, BeaconError) as exc:  # a BeaconError's Said is said along
            why = exc.args[0] if len(exc.args) == 1 else str(exc)
            raise ValueError(_file_fault(networks_file, why)) from None
    return BeaconConfig(networks=networks, relays=tuple(u.rstrip("/") for u in relays))


def _file_fault(path: str, why: object) -> Said:
    return said("server.beacon_config.file", file=path, why=why)
