"""drand beacon rounds: networks, their BLS signatures, the deal seed (docs/GENERATOR.md).

A network is pinned by its parameters; its chain hash is their sha256, so a network read
from a file cannot claim a built-in network's chain with another key. A round verifies
when its signature, a point of the network's signature group, satisfies
e(sig, g2) = e(H(m), pk) (or e(g1, sig) = e(pk, H(m)) with signatures on G2), H being
RFC 9380 hash-to-curve with the network's DST and m = sha256(uint64_be(round)), or
sha256(previous_signature || uint64_be(round)) on a chained network.

Pure: no clock, no network. The pairing arithmetic is py-arkworks-bls12381 (Rust's
arkworks); points are decoded with their subgroup check.
"""

from __future__ import annotations

import hashlib
import re
import struct
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal, TypeVar

from py_arkworks_bls12381 import GT, G1Point, G2Point

from server import rng
from server.i18n.said import said

G1_DST = "BLS_SIG_BLS12381G1_XMD:SHA-256_SSWU_RO_NUL_"
G2_DST = "BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_NUL_"
# drand's schemes: the signature group, whether rounds are chained, the DST.
SCHEMES: dict[str, tuple[Literal["G1", "G2"], bool, str]] = {
    "bls-unchained-g1-rfc9380": ("G1", False, G1_DST),
    "pedersen-bls-chained": ("G2", True, G2_DST),
    "pedersen-bls-unchained": ("G2", False, G2_DST),
}
POINT_BYTES = {"G1": 48, "G2": 96}
P = TypeVar("P", G1Point, G2Point)


class BeaconError(ValueError):
    """A network or round that is not what it must be, said in one line."""


@dataclass(frozen=True)
class Network:
    """One drand network's pinned parameters."""

    name: str
    chain_hash: str  # 64 lowercase hex
    scheme: str
    beacon_id: str
    period: int
    genesis_time: int
    public_key: bytes
    genesis_seed: bytes
    relays: tuple[str, ...] = ()

    @property
    def signature_group(self) -> Literal["G1", "G2"]:
        return SCHEMES[self.scheme][0]

    @property
    def chained(self) -> bool:
        return SCHEMES[self.scheme][1]

    @property
    def dst(self) -> bytes:
        return SCHEMES[self.scheme][2].encode("ascii")

    def round_time(self, round_: int) -> int:
        """The unix time at which `round_` (1, 2, ...) is produced."""
        return self.genesis_time + (round_ - 1) * self.period

    def first_round_at(self, t: float) -> int:
        """The first round whose time is at or after `t` (round 1 before genesis)."""
        if t <= self.genesis_time:
            return 1
        ahead = t - self.genesis_time
        r = int(ahead // self.period) + 1
        return r if self.round_time(r) >= t else r + 1


@dataclass(frozen=True)
class Round:
    """A round as a relay serves it: the signature (and the previous one when chained)."""

    round: int
    signature: bytes
    previous_signature: bytes | None = None

    @property
    def randomness(self) -> bytes:
        """The round's randomness: sha256 of its signature."""
        return hashlib.sha256(self.signature).digest()


def chain_hash_of(
    period: int, genesis_time: int, public_key: bytes, genesis_seed: bytes, beacon_id: str
) -> str:
    """drand's chain hash: sha256(u32 period, i64 genesis time, public key, genesis seed,
    beacon id unless it is "default")."""
    data = struct.pack(">Iq", period, genesis_time) + public_key + genesis_seed
    if beacon_id != "default":
        data += beacon_id.encode("utf-8")
    return hashlib.sha256(data).hexdigest()


QUICKNET = Network(
    name="quicknet",
    chain_hash="52db9ba70e0cc0f6eaf7803dd07447a1f5477735fd3f661792ba94600c84e971",
    scheme="bls-unchained-g1-rfc9380",
    beacon_id="quicknet",
    period=3,
    genesis_time=1692803367,
    public_key=bytes.fromhex(
        "83cf0f2896adee7eb8b5f01fcad3912212c437e0073e911fb90022d3e760183c8c4b450b6a0a6c3ac6a5776a"
        "2d1064510d1fec758c921cc22b0e17e63aaf4bcb5ed66304de9cf809bd274ca73bab4af5a6e9c76a4bc09e76"
        "eae8991ef5ece45a"
    ),
    genesis_seed=bytes.fromhex("f477d5c89f21a17c863a7f937c6a6d15859414d2be09cd448d4279af331c5d3e"),
    relays=(
        "https://api.drand.sh",
        "https://api2.drand.sh",
        "https://api3.drand.sh",
        "https://drand.cloudflare.com",
    ),
)
DEFAULT = Network(
    name="default",
    chain_hash="8990e7a9aaed2ffed73dbd7092123d6f289930540d7651336225dc172e51b2ce",
    scheme="pedersen-bls-chained",
    beacon_id="default",
    period=30,
    genesis_time=1595431050,
    public_key=bytes.fromhex(
        "868f005eb8e6e4ca0a47c8a77ceaa5309a47978a7c71bc5cce96366b5d7a569937c529eeda66c7293784a940"
        "2801af31"
    ),
    genesis_seed=bytes.fromhex("176f93498eac9ca337150b46d21dd58673ea4e3581185f869672e59fa4cb390a"),
    relays=QUICKNET.relays,
)
BUILT_IN: Mapping[str, Network] = MappingProxyType({QUICKNET.name: QUICKNET, DEFAULT.name: DEFAULT})


def message(network: Network, r: Round) -> bytes:
    """What the network signed for round r."""
    prefix = b""
    if network.chained:
        if r.previous_signature is None:
            raise BeaconError(said("audit.beacon_error.previous_missing", round=r.round))
        prefix = r.previous_signature
    return hashlib.sha256(prefix + r.round.to_bytes(8, "big")).digest()


def verify_round(network: Network, r: Round) -> None:
    """Nothing if round r carries the network's signature; BeaconError saying why not."""
    group = network.signature_group
    if r.round < 1 or r.round >= 1 << 64:
        raise BeaconError(said("audit.beacon_error.round_number", round=r.round))
    if len(r.signature) != POINT_BYTES[group]:
        size, point = len(r.signature), POINT_BYTES[group]
        raise BeaconError(
            said("audit.beacon_error.signature_size", size=size, group=group, point=point)
        )
    msg = message(network, r)
    if group == "G1":
        sig1 = _decoded(G1Point.from_compressed_bytes, r.signature, group)
        pk2 = G2Point.from_compressed_bytes(network.public_key)
        ok = GT.pairing_check([sig1, -G1Point.hash_to_curve(msg, network.dst)], [G2Point(), pk2])
    else:
        sig2 = _decoded(G2Point.from_compressed_bytes, r.signature, group)
        pk1 = G1Point.from_compressed_bytes(network.public_key)
        ok = GT.pairing_check([G1Point(), -pk1], [sig2, G2Point.hash_to_curve(msg, network.dst)])
    if not ok:
        raise BeaconError(said("audit.beacon_error.signature_wrong"))


def _decoded(decode: Callable[[bytes], P], data: bytes, group: str) -> P:
    """A compressed point, checked to be on the curve and in the prime-order subgroup."""
    try:
        return decode(data)
    except ValueError:
        raise BeaconError(said("audit.beacon_error.signature_point", group=group)) from None


def deal_seed(seed: bytes, network: Network, r: Round) -> bytes:
    """The deal seed from the tournament's secret and a (verified) round."""
    return rng.beacon_deal_seed(seed, bytes.fromhex(network.chain_hash), r.round, r.randomness)


def round_from_json(network: Network, data: Any, expected_round: int) -> Round:
    """A round as a relay or a record writes it ({"round","signature",
    "previous_signature"?,"randomness"?}, hex); BeaconError if it is malformed, another
    round, or its randomness is not sha256(signature). Its signature is not verified."""
    if not isinstance(data, dict):
        raise BeaconError(said("audit.beacon_error.round_object"))
    number = data.get("round")
    if type(number) is not int or number != expected_round:
        raise BeaconError(
            said("audit.beacon_error.round_other", round=repr(number), expected=expected_round)
        )
    signature = parse_hex(data.get("signature"), "signature")
    previous = data.get("previous_signature")
    prev = parse_hex(previous, "previous_signature") if network.chained else None
    r = Round(number, signature, prev)
    randomness = data.get("randomness")
    if randomness is not None and parse_hex(randomness, "randomness") != r.randomness:
        raise BeaconError(said("audit.beacon_error.randomness"))
    return r


_HEX = re.compile(r"(?:[0-9a-fA-F]{2}){0,512}")


def parse_hex(value: Any, what: str, network: str | None = None) -> bytes:
    """Bytes from hex digits only (no spaces, at most 512 bytes); BeaconError otherwise
    (naming the field `what`, of `network` when a network's)."""
    if not isinstance(value, str) or not _HEX.fullmatch(value):
        if network is not None:
            raise BeaconError(said("audit.beacon_error.network_hex", network=network, what=what))
        raise BeaconError(said("audit.beacon_error.not_hex", what=what))
    return bytes.fromhex(value)


def network_from_json(name: str, data: Any) -> Network:
    """A network as the vectors' `networks` write one; BeaconError if a field is missing
    or wrong, if its signature group or DST is not its scheme's, if its public key is not
    a point of the other group, or if its chain hash is not that of its parameters."""
    shown = repr(name)
    if not isinstance(data, dict):
        raise BeaconError(said("audit.beacon_error.network_object", network=shown))
    scheme = data.get("scheme")
    if scheme not in SCHEMES:
        known = str(sorted(SCHEMES))
        raise BeaconError(
            said("audit.beacon_error.scheme", network=shown, scheme=repr(scheme), known=known)
        )
    group, _, dst = SCHEMES[scheme]
    if data.get("signature_group", group) != group or data.get("dst", dst) != dst:
        raise BeaconError(
            said(
                "audit.beacon_error.scheme_group",
                network=shown,
                scheme=scheme,
                group=group,
                dst=dst,
            )
        )
    period, genesis = data.get("period"), data.get("genesis_time")
    if type(period) is not int or not 0 < period < 1 << 32:
        raise BeaconError(said("audit.beacon_error.period", network=shown))
    if type(genesis) is not int or not 0 <= genesis < 1 << 62:
        raise BeaconError(said("audit.beacon_error.genesis_time", network=shown))
    beacon_id = data.get("beacon_id", name)
    relays = data.get("relays", [])
    if not isinstance(beacon_id, str) or not isinstance(relays, list):
        raise BeaconError(said("audit.beacon_error.id_relays", network=shown))
    if not all(isinstance(u, str) and u.startswith(("http://", "https://")) for u in relays):
        raise BeaconError(said("audit.beacon_error.relay", network=shown))
    net = Network(
        name=name,
        chain_hash=str(data.get("chain_hash", "")).lower(),
        scheme=scheme,
        beacon_id=beacon_id,
        period=period,
        genesis_time=genesis,
        public_key=parse_hex(data.get("public_key"), "public_key", shown),
        genesis_seed=parse_hex(data.get("genesis_seed"), "genesis_seed", shown),
        relays=tuple(u.rstrip("/") for u in relays),
    )
    _check_public_key(net)
    made = chain_hash_of(period, genesis, net.public_key, net.genesis_seed, beacon_id)
    if net.chain_hash != made:
        raise BeaconError(said("audit.beacon_error.chain_made", network=shown, chain=made))
    return net


def _check_public_key(net: Network) -> None:
    try:
        if net.signature_group == "G1":
            G2Point.from_compressed_bytes(net.public_key)
        else:
            G1Point.from_compressed_bytes(net.public_key)
    except ValueError:
        other = "G2" if net.signature_group == "G1" else "G1"
        raise BeaconError(
            said("audit.beacon_error.public_key", network=repr(net.name), group=other)
        ) from None


def networks_from_json(data: Any) -> dict[str, Network]:
    """The built-in networks plus those of a --beacon-networks file (a JSON object of
    networks); a file cannot replace a built-in network, by name or by chain hash."""
    if not isinstance(data, dict):
        raise BeaconError(said("audit.beacon_error.networks_file"))
    out = dict(BUILT_IN)
    chains = {n.chain_hash for n in BUILT_IN.values()}
    for name, spec in data.items():
        if name in BUILT_IN:
            raise BeaconError(said("audit.beacon_error.built_in", network=repr(name)))
        net = network_from_json(name, spec)
        if net.chain_hash in chains:
            raise BeaconError(
                said("audit.beacon_error.chain_known", network=repr(name), chain=net.chain_hash)
            )
        chains.add(net.chain_hash)
        out[name] = net
    return out


def network_named(name: str, networks: Mapping[str, Network], flag: str = "--beacon") -> Network:
    """The network called `name` (a command line's --beacon NETWORK); BeaconError in one
    line naming the known ones and how to add another."""
    net = networks.get(name)
    if net is None:
        known = ", ".join(sorted(networks))
        raise BeaconError(
            said("audit.beacon_error.unknown", flag=flag, network=repr(name[:40]), known=known)
        )
    return net
