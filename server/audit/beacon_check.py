"""The beacon of a record's or bundle's tournament, as the verifier checks it (RECORD.md
v1.3): a known network, its chain, a round no earlier than the start, a signature that
verifies against the network's pinned key; then the deal seed every label reads. A
difference is one line naming the beacon (server/audit/verify.py reports it)."""

from __future__ import annotations

from collections.abc import Mapping

from server import rng
from server.audit import drand
from server.audit.drand import BeaconError, Network
from server.audit.records import RecordBeacon, RecordTournament
from server.audit.untrusted import Unreadable, show
from server.domain import timing
from server.i18n.said import said


class BeaconDifference(Exception):
    """The beacon is not what it must be, said in one line."""


def _bare(text: str) -> str:
    """A claimed hash as it stands, cut short (as verify.py cuts them)."""
    return text if len(text) <= 80 else text[:80] + "…"


def check_beacon(
    t: RecordTournament,
    seed: bytes,
    checked: list[str],
    notes: list[str],
    networks: Mapping[str, Network] = drand.BUILT_IN,
    dealt: bool = True,
) -> bytes:
    """The seed every label reads: without a beacon the seed itself; with one, its round
    verified against the network's key (a known network, its chain, a round not before
    the start, a valid signature), the deal seed derived from it."""
    b = t.beacon
    if b is None:
        return seed
    what = said("audit.beacon.round", id=t.id, round=b.round, network=show(b.network))
    net = networks.get(b.network)
    if net is None:
        raise BeaconDifference(said("audit.diff.beacon_network", id=t.id, network=show(b.network)))
    if b.chain_hash.lower() != net.chain_hash:
        raise BeaconDifference(
            said(
                "audit.diff.chain_hash",
                what=what,
                claimed=_bare(b.chain_hash),
                chain=net.chain_hash,
            )
        )
    if b.round < 1 or b.round >= 1 << 64:
        raise BeaconDifference(said("audit.diff.round_number", what=what))
    try:
        start_ms = timing.epoch_ms(timing.parse_iso(t.starts_at))
    except (ValueError, OverflowError) as exc:
        raise Unreadable(said("audit.unreadable.start", id=t.id, why=str(exc))) from None
    if net.round_time(b.round) * 1000 < start_ms:
        first = net.first_round_at(start_ms / 1000)
        raise BeaconDifference(said("audit.diff.round_early", what=what, first=first))
    if b.signature is None:
        if dealt:
            raise BeaconDifference(said("audit.diff.no_signature", what=what))
        notes.append(said("audit.beacon.void", what=what))
        return seed
    try:
        r = _beacon_round(net, b)
        drand.verify_round(net, r)
    except BeaconError as exc:
        why = exc.args[0] if len(exc.args) == 1 else str(exc)  # a Said, said with it
        raise BeaconDifference(said("audit.diff.beacon", what=what, why=why)) from None
    checked.append(said("audit.beacon.verified", what=what))
    return drand.deal_seed(seed, net, r)


def _beacon_round(net: Network, b: RecordBeacon) -> drand.Round:
    prev = None
    if net.chained and b.previous_signature is not None:
        prev = drand.parse_hex(b.previous_signature, "previous_signature")
    return drand.Round(b.round, drand.parse_hex(b.signature or "", "signature"), prev)


def dealing_seed(t: RecordTournament) -> bytes:
    """The seed the tournament's labels read (its beacon's deal seed, when it has one);
    `check_beacon` has checked the beacon first."""
    seed = bytes.fromhex(t.seed or "")
    b = t.beacon
    if b is None or b.signature is None:
        return seed
    signature = drand.parse_hex(b.signature, "signature")
    return rng.beacon_deal_seed(
        seed, bytes.fromhex(b.chain_hash), b.round, drand.Round(b.round, signature).randomness
    )
