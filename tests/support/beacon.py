"""A drand-like network whose secret key the test holds: it signs rounds that verify under
server/audit/beacon.py, for end-to-end tests with a local relay (the production networks
stay pinned)."""

from __future__ import annotations

import hashlib
from typing import Any

from py_arkworks_bls12381 import G1Point, G2Point, Scalar

from server.audit import beacon
from server.audit.beacon import Round


class KeyedNetwork:
    """A quicknet-like network (signatures on G1) or a chained one (on G2), 3 s rounds."""

    def __init__(
        self,
        name: str = "testnet",
        chained: bool = False,
        sk: int = 12345,
        genesis_time: int = 1_700_000_000,
        period: int = 3,
    ) -> None:
        self.sk = Scalar(sk)
        self.chained = chained
        scheme = "pedersen-bls-chained" if chained else "bls-unchained-g1-rfc9380"
        pk = ((G1Point() if chained else G2Point()) * self.sk).to_compressed_bytes()
        genesis_seed = hashlib.sha256(name.encode()).digest()
        self.spec: dict[str, Any] = {
            "chain_hash": beacon.chain_hash_of(period, genesis_time, pk, genesis_seed, name),
            "scheme": scheme,
            "beacon_id": name,
            "period": period,
            "genesis_time": genesis_time,
            "public_key": pk.hex(),
            "genesis_seed": genesis_seed.hex(),
        }
        self.network = beacon.network_from_json(name, self.spec)

    def sign(self, number: int, previous: bytes | None = None) -> Round:
        """Round `number` signed with the key (chained: over `previous`, or the genesis
        seed)."""
        net = self.network
        prev = (previous or net.genesis_seed) if self.chained else None
        msg = beacon.message(net, Round(number, b"", prev))
        point = (G2Point if self.chained else G1Point).hash_to_curve(msg, net.dst) * self.sk
        return Round(number, point.to_compressed_bytes(), prev)

    def relay_json(self, r: Round) -> dict[str, Any]:
        """The round as drand's HTTP API serves it."""
        out: dict[str, Any] = {
            "round": r.round,
            "randomness": r.randomness.hex(),
            "signature": r.signature.hex(),
        }
        if r.previous_signature is not None:
            out["previous_signature"] = r.previous_signature.hex()
        return out
