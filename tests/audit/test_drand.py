"""drand rounds against the contract's vectors (tests/data/drand-rounds-v1.json): the pinned
networks, 16 real rounds that verify, 6 tampered ones that do not, 8 derivations; and the
networks a --beacon-networks file may add (a test network whose key the test holds)."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from server import rng
from server.audit import drand
from server.audit.drand import BeaconError, Round
from server.games import gaps
from tests.conftest import load_vector
from tests.support.beacon import KeyedNetwork

VECTORS = load_vector("drand-rounds-v1.json")


def round_of(entry: dict[str, Any]) -> Round:
    prev = entry.get("previous_signature")
    return Round(
        entry["round"], bytes.fromhex(entry["signature"]), bytes.fromhex(prev) if prev else None
    )


def test_the_built_in_networks_are_the_vectors() -> None:
    assert set(VECTORS["networks"]) == set(drand.BUILT_IN)
    for name, spec in VECTORS["networks"].items():
        net = drand.BUILT_IN[name]
        assert net.chain_hash == spec["chain_hash"]
        assert net.scheme == spec["scheme"] and net.beacon_id == spec["beacon_id"]
        assert (net.period, net.genesis_time) == (spec["period"], spec["genesis_time"])
        assert net.public_key.hex() == spec["public_key"]
        assert net.genesis_seed.hex() == spec["genesis_seed"]
        assert net.signature_group == spec["signature_group"]
        assert net.dst.decode() == spec["dst"]
        assert net.chained == ("previous_signature" in spec["message"])
        assert drand.network_from_json(name, spec) == dataclasses.replace(net, relays=())


def test_sixteen_real_rounds_verify() -> None:
    rounds = VECTORS["rounds"]
    assert len(rounds) == 16
    for entry in rounds:
        net = drand.BUILT_IN[entry["network"]]
        r = round_of(entry)
        drand.verify_round(net, r)
        assert r.randomness.hex() == entry["randomness"]
        assert net.round_time(r.round) == entry["time_unix"]


@pytest.mark.parametrize("entry", VECTORS["rejected"], ids=lambda e: e["why"])
def test_six_tampered_rounds_are_refused(entry: dict[str, Any]) -> None:
    net = drand.BUILT_IN[entry["network"]]
    with pytest.raises(BeaconError) as err:
        drand.verify_round(net, round_of(entry))
    assert str(err.value).startswith("the signature ")


def test_exactly_six_tampered() -> None:
    assert len(VECTORS["rejected"]) == 6


def test_a_round_is_refused_under_the_other_network() -> None:
    entry = VECTORS["rounds"][0]  # quicknet
    with pytest.raises(BeaconError, match="is 48 bytes, a point of G2 is 96"):
        drand.verify_round(drand.DEFAULT, round_of(entry))


def test_a_chained_round_needs_its_previous_signature() -> None:
    entry = dict(VECTORS["rounds"][-1])
    entry.pop("previous_signature")
    with pytest.raises(BeaconError, match="previous_signature"):
        drand.verify_round(drand.DEFAULT, round_of(entry))


@pytest.mark.parametrize("d", VECTORS["derivations"], ids=lambda d: f"{d['network']}-{d['round']}")
def test_eight_derivations_reproduce(d: dict[str, Any]) -> None:
    seed = bytes.fromhex(d["secret"])
    assert rng.commitment(seed) == d["commitment"]
    net = drand.BUILT_IN[d["network"]]
    assert net.chain_hash == d["chain_hash"]
    entry = next(
        r for r in VECTORS["rounds"] if (r["network"], r["round"]) == (d["network"], d["round"])
    )
    r = round_of(entry)
    drand.verify_round(net, r)
    assert r.randomness.hex() == d["randomness"]
    deal = drand.deal_seed(seed, net, r)
    assert deal.hex() == d["deal_seed"]
    assert gaps.format_grid(gaps.deal_grid(deal)) == d["gaps_deal_rows"]


def test_exactly_eight_derivations() -> None:
    assert len(VECTORS["derivations"]) == 8


def test_deal_seed_is_the_hmac_of_the_contract() -> None:
    seed, chain, rnd = b"\x01" * 32, b"\x02" * 32, b"\x03" * 32
    msg = b"samedeal/beacon/v1\x00" + chain + (77).to_bytes(8, "big") + rnd
    import hmac

    assert rng.beacon_deal_seed(seed, chain, 77, rnd) == hmac.digest(seed, msg, "sha256")
    with pytest.raises(ValueError):
        rng.beacon_deal_seed(seed, chain[:31], 77, rnd)


def test_the_round_rule() -> None:
    q = drand.QUICKNET
    t0 = q.genesis_time
    assert q.first_round_at(t0 - 100) == 1
    assert q.first_round_at(t0) == 1
    assert q.first_round_at(t0 + 0.5) == 2
    assert q.first_round_at(t0 + 3) == 2
    assert q.first_round_at(t0 + 3.001) == 3
    for t in range(t0, t0 + 50):
        r = q.first_round_at(t)
        assert q.round_time(r) >= t > q.round_time(r - 1) or r == 1


def test_a_relay_round_is_read_and_checked() -> None:
    net = drand.DEFAULT
    entry = VECTORS["rounds"][-1]
    r = drand.round_from_json(net, entry, entry["round"])
    assert r == round_of(entry)
    with pytest.raises(BeaconError, match="not 5"):
        drand.round_from_json(net, entry, 5)
    with pytest.raises(BeaconError, match="randomness"):
        drand.round_from_json(net, {**entry, "randomness": "00" * 32}, entry["round"])
    with pytest.raises(BeaconError, match="not hex"):
        drand.round_from_json(net, {**entry, "signature": "zz"}, entry["round"])
    with pytest.raises(BeaconError, match="not hex"):
        drand.round_from_json(net, {**entry, "previous_signature": None}, entry["round"])
    with pytest.raises(BeaconError, match="is True, not"):
        drand.round_from_json(net, {**entry, "round": True}, 1)


@pytest.mark.parametrize("chained", [False, True])
def test_a_test_network_signs_rounds_that_verify(chained: bool) -> None:
    t = KeyedNetwork(chained=chained)
    r = t.sign(42, previous=b"\x07" * 96 if chained else None)
    drand.verify_round(t.network, r)
    with pytest.raises(BeaconError):
        drand.verify_round(t.network, Round(43, r.signature, r.previous_signature))
    other = KeyedNetwork(chained=chained, sk=999)
    with pytest.raises(BeaconError, match="does not verify"):
        drand.verify_round(t.network, other.sign(42, previous=b"\x07" * 96 if chained else None))


def test_a_networks_file_adds_but_never_replaces() -> None:
    t = KeyedNetwork()
    nets = drand.networks_from_json({"testnet": {**t.spec, "relays": ["http://127.0.0.1:1/"]}})
    assert set(nets) == {"quicknet", "default", "testnet"}
    assert nets["testnet"].relays == ("http://127.0.0.1:1",)
    assert nets["quicknet"] is drand.QUICKNET
    with pytest.raises(BeaconError, match="built in"):
        drand.networks_from_json({"quicknet": t.spec})
    quick = VECTORS["networks"]["quicknet"]
    with pytest.raises(BeaconError, match="already known"):
        drand.networks_from_json({"mine": quick})
    with pytest.raises(BeaconError, match="hash to chain"):
        drand.networks_from_json({"x": {**t.spec, "chain_hash": quick["chain_hash"]}})
    with pytest.raises(BeaconError, match="hash to chain"):
        drand.networks_from_json({"x": {**t.spec, "public_key": quick["public_key"]}})
    with pytest.raises(BeaconError, match="signs on G1"):
        drand.networks_from_json({"x": {**t.spec, "signature_group": "G2"}})
    with pytest.raises(BeaconError, match="not a point of G2"):
        drand.networks_from_json({"x": {**t.spec, "public_key": "ab" * 96}})
    with pytest.raises(BeaconError, match="scheme"):
        drand.networks_from_json({"x": {**t.spec, "scheme": "rsa"}})
    with pytest.raises(BeaconError, match="period"):
        drand.networks_from_json({"x": {**t.spec, "period": 0}})
    with pytest.raises(BeaconError, match="relay"):
        drand.networks_from_json({"x": {**t.spec, "relays": ["file:///etc"]}})
    with pytest.raises(BeaconError, match="JSON object"):
        drand.networks_from_json([])
