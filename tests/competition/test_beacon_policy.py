"""Fetching a beacon round from relays: the round rule, several relays tried in order with
timeouts and failover, a round verified before use (a relay serving a wrong signature is
refused and the next asked), a round not yet produced, the void deadline; over real HTTP
to local relays of a keyed test network."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

import pytest

from server.audit import drand as pure
from server.competition import beacon_policy
from server.competition.drand_http import fetch_json
from server.competition.errors import CompetitionError
from tests.support.beacon import KeyedNetwork
from tests.support.relay import Relay, down_url, serving

NET = KeyedNetwork("relay-test", genesis_time=1_800_000_000)


def at(unix: float) -> datetime:
    return datetime.fromtimestamp(unix, UTC)


def test_the_round_rule_at_creation() -> None:
    nets = {**pure.BUILT_IN, NET.network.name: NET.network}
    g = NET.network.genesis_time
    created = at(g + 100)  # round time g + 3(R-1)
    p = beacon_policy.plan(nets, {"network": "relay-test"}, created, starts_at=created)
    assert NET.network.round_time(p.round) == g + 132  # the first at or after g + 130
    later = at(g + 1000.5)
    p2 = beacon_policy.plan(nets, {"network": "relay-test"}, created, starts_at=later)
    assert NET.network.round_time(p2.round) == g + 1002  # first >= starts_at
    assert p2.as_dict() == {
        "network": "relay-test",
        "chain_hash": NET.network.chain_hash,
        "round": p2.round,
    }
    q = beacon_policy.plan(nets, {"network": "quicknet"}, at(1_900_000_000), at(1_900_000_000))
    assert pure.QUICKNET.round_time(q.round) >= 1_900_000_030
    assert pure.QUICKNET.round_time(q.round - 1) < 1_900_000_030
    for bad in ({"network": "nope"}, {"network": 1}, {}, {"network": "quicknet", "x": 1}, "q"):
        with pytest.raises(CompetitionError) as err:
            beacon_policy.plan(nets, bad, created, created)
        assert err.value.code == "bad_request"


def test_the_void_deadline() -> None:
    net = NET.network
    r = 500
    due = beacon_policy.due_at(net, r)
    assert due.timestamp() == net.round_time(r)
    assert beacon_policy.void_at(net, r, due - timedelta(hours=1)) == due + timedelta(minutes=10)
    late_start = due + timedelta(minutes=3)
    assert beacon_policy.void_at(net, r, late_start) == late_start + timedelta(minutes=10)


def test_relays_configured_or_the_networks_own() -> None:
    assert beacon_policy.relays_for(pure.QUICKNET, []) == pure.QUICKNET.relays
    assert beacon_policy.relays_for(pure.QUICKNET, ["http://x/"]) == ("http://x",)


async def test_a_good_relay_serves_a_verified_round() -> None:
    with serving(Relay(NET)) as (relay,):
        relay.latest = 10
        r = await beacon_policy.fetch_round(NET.network, 7, [relay.url], fetch_json)
        assert r is not None and r == NET.sign(7)
        assert await beacon_policy.fetch_round(NET.network, 11, [relay.url], fetch_json) is None


async def test_failover_past_a_down_a_slow_and_a_lying_relay() -> None:
    relays = [Relay(NET, "slow", delay_s=3.0), Relay(NET, "wrong"), Relay(NET, "garbage")]
    relays += [Relay(NET, "error"), Relay(NET)]
    with serving(*relays) as served:
        for relay in served:
            relay.latest = 20
        urls = [down_url()] + [r.url for r in served]
        t0 = time.monotonic()
        r = await beacon_policy.fetch_round(NET.network, 20, urls, fetch_json, timeout_s=0.5)
        assert r == NET.sign(20)
        assert time.monotonic() - t0 < 3.0  # the slow one was given up on at its timeout
        assert all(x.requests for x in served)
        # without the good relay: nobody serves it correctly
        r = await beacon_policy.fetch_round(NET.network, 20, urls[:-1], fetch_json, timeout_s=0.5)
        assert r is None


async def test_a_relay_of_another_network_is_refused() -> None:
    other = KeyedNetwork("relay-test", genesis_time=1_800_000_000, sk=4242)  # same name, other key
    with serving(Relay(other)) as (relay,):
        relay.latest = 5
        # its chain hash differs, so the URL of NET's chain is a 404 there
        assert await beacon_policy.fetch_round(NET.network, 5, [relay.url], fetch_json) is None


async def test_a_bad_relay_url_is_a_failure_not_a_crash() -> None:
    assert (
        await beacon_policy.fetch_round(NET.network, 5, ["file:///etc/passwd"], fetch_json) is None
    )
