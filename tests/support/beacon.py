"""A drand-like network whose secret key the test holds: it signs rounds that verify under
server/audit/drand.py, for end-to-end tests with a local relay (the production networks
stay pinned)."""

from __future__ import annotations

import copy
import hashlib
import json
import random
from pathlib import Path
from typing import Any

from py_arkworks_bls12381 import G1Point, G2Point, Scalar

from server.audit import drand, receipts
from server.audit.drand import Network, Round
from server.domain import timing
from tests.support import factories


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
            "chain_hash": drand.chain_hash_of(period, genesis_time, pk, genesis_seed, name),
            "scheme": scheme,
            "beacon_id": name,
            "period": period,
            "genesis_time": genesis_time,
            "public_key": pk.hex(),
            "genesis_seed": genesis_seed.hex(),
        }
        self.network = drand.network_from_json(name, self.spec)

    def sign(self, number: int, previous: bytes | None = None) -> Round:
        """Round `number` signed with the key (chained: over `previous`, or the genesis
        seed)."""
        net = self.network
        prev = (previous or net.genesis_seed) if self.chained else None
        msg = drand.message(net, Round(number, b"", prev))
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


def beacon_of(network: Network, number: int, r: Round | None = None) -> dict[str, Any]:
    """A tournament's `beacon` object: its round, and once verified, its signatures."""
    out: dict[str, Any] = {
        "network": network.name,
        "chain_hash": network.chain_hash,
        "round": number,
    }
    if r is None:
        return out
    out["signature"] = r.signature.hex()
    if r.previous_signature is not None:
        out["previous_signature"] = r.previous_signature.hex()
    return out


def beacon_tournament(
    seed: bytes, network: Network, r: Round, game: str = "gaps", **over: Any
) -> dict[str, Any]:
    """factories.tournament dated around round r (it starts a minute before the round's
    time and lasts an hour), with the round as its beacon."""
    t = factories.tournament(seed, game=game, **over)
    at = network.round_time(r.round) * 1000
    t["starts_at"] = timing.iso_of_epoch_ms(at - 60_000)
    t["ends_at"] = t["closed_at"] = timing.iso_of_epoch_ms(at + 3_600_000)
    t["beacon"] = beacon_of(network, r.round, r)
    return t


def started_at(t: dict[str, Any], after_s: int = 90) -> str:
    """A game's start, `after_s` seconds after the tournament's."""
    return timing.iso_of_epoch_ms(
        timing.epoch_ms(timing.parse_iso(t["starts_at"])) + after_s * 1000
    )


VECTORS = json.loads((Path(__file__).parents[1] / "data" / "drand-rounds-v1.json").read_text())
SEED = bytes.fromhex("e4c537b6139465e60d1e3dc91d26a884e7b04b4d57558cedeb4b13dff5d68d97")
KEYED = KeyedNetwork("samedeal-test")
KEYED_CHAINED = KeyedNetwork("samedeal-test-chained", chained=True, sk=777)
KEYED_NETWORKS = {KEYED.network.name: KEYED.spec, KEYED_CHAINED.network.name: KEYED_CHAINED.spec}


def vector_round(network: str, number: int) -> tuple[Network, Round]:
    """A real recorded round of the vectors."""
    e = next(r for r in VECTORS["rounds"] if (r["network"], r["round"]) == (network, number))
    prev = e.get("previous_signature")
    r = Round(number, bytes.fromhex(e["signature"]), bytes.fromhex(prev) if prev else None)
    return drand.BUILT_IN[network], r


def beacon_bundle(network: Network, r: Round, n: int = 3, seed: bytes = SEED) -> dict[str, Any]:
    """A correct Gaps bundle whose deals come from the deal seed of round r."""
    t = beacon_tournament(seed, network, r)
    deal = drand.deal_seed(seed, network, r)
    records = []
    for pid in range(1, n + 1):
        rnd = random.Random(pid)
        actions = factories.play_gaps(deal, pid, rnd.choice([5, 40, 300]), rnd, resign=pid == 2)
        records.append(factories.record(t, pid, f"b{pid}", actions, started_at=started_at(t)))
    return factories.bundle(t, records)


def with_beacon(doc: dict[str, Any], **change: Any) -> dict[str, Any]:
    """The document with its tournament's beacon changed everywhere it appears (None
    removes a field)."""
    bad = copy.deepcopy(doc)
    for t in [bad["tournament"], *(r["tournament"] for r in bad.get("records", []))]:
        for k, v in change.items():
            if v is None:
                t["beacon"].pop(k, None)
            else:
                t["beacon"][k] = v
    return bad


def flip(hex_text: str, nibble: int = 20) -> str:
    """One hex digit changed."""
    c = "0" if hex_text[nibble] != "0" else "1"
    return hex_text[:nibble] + c + hex_text[nibble + 1 :]


def beacon_documents() -> dict[str, Any]:
    """Good and tampered bundles and records with a beacon: real rounds of both networks,
    and the keyed test networks (known only with KEYED_NETWORKS)."""
    docs: dict[str, Any] = {}
    for network, number in [("quicknet", 1000), ("default", 72785)]:
        net, r = vector_round(network, number)
        good = beacon_bundle(net, r)
        docs[f"beacon {network}"] = good
        docs[f"beacon {network}: record"] = good["records"][0]
        b = good["tournament"]["beacon"]
        docs[f"beacon {network}: next round"] = with_beacon(good, round=number + 1)
        docs[f"beacon {network}: signature flipped"] = with_beacon(
            good, signature=flip(b["signature"])
        )
        docs[f"beacon {network}: signature cut"] = with_beacon(good, signature=b["signature"][:-2])
        docs[f"beacon {network}: signature not hex"] = with_beacon(good, signature="zz")
        docs[f"beacon {network}: no signature"] = with_beacon(good, signature=None)
        docs[f"beacon {network}: chain"] = with_beacon(good, chain_hash=flip(b["chain_hash"]))
        docs[f"beacon {network}: other network"] = with_beacon(
            good, network="default" if network == "quicknet" else "quicknet"
        )
        docs[f"beacon {network}: unknown network"] = with_beacon(good, network="mainnet")
        docs[f"beacon {network}: round 0"] = with_beacon(good, round=0)
        early = copy.deepcopy(good)
        for t in [early["tournament"], *(x["tournament"] for x in early["records"])]:
            t["starts_at"] = timing.iso_of_epoch_ms(net.round_time(number) * 1000 + 1)
        docs[f"beacon {network}: round before the start"] = early
        played_on_seed = copy.deepcopy(good)
        played_on_seed["tournament"].pop("beacon")
        for x in played_on_seed["records"]:
            x["tournament"].pop("beacon")
        docs[f"beacon {network}: removed"] = played_on_seed
        void = copy.deepcopy(good)
        void["records"], void["standings"] = [], []
        void["log_root"] = receipts.log_root([])
        void["tournament"]["beacon"].pop("signature")
        void["tournament"]["beacon"].pop("previous_signature", None)
        docs[f"beacon {network}: void"] = void
    net, r = vector_round("default", 72785)
    good = docs["beacon default"]
    prev = good["tournament"]["beacon"]["previous_signature"]
    docs["beacon default: previous flipped"] = with_beacon(good, previous_signature=flip(prev))
    docs["beacon default: no previous"] = with_beacon(good, previous_signature=None)
    for keyed in (KEYED, KEYED_CHAINED):
        number = 1_000_000
        signed = keyed.sign(number, previous=b"\x05" * 96 if keyed.chained else None)
        docs[f"beacon {keyed.network.name}"] = beacon_bundle(keyed.network, signed, n=2)
    return docs
