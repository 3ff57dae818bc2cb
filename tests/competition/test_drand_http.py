"""drand's HTTP API (drand_http.py): a round's JSON from a relay, NotYet for a round the
relay does not have (404), an error status or a body that is not JSON as errors, and
nothing but http(s) asked."""

from __future__ import annotations

import pytest

from server.competition.beacon_policy import NotYet
from server.competition.drand_http import fetch_json
from tests.support.beacon import KeyedNetwork
from tests.support.relay import Relay, serving

NET = KeyedNetwork("http-test", genesis_time=1_800_000_000)


def round_url(relay: Relay, number: int) -> str:
    return f"{relay.url}/{NET.network.chain_hash}/public/{number}"


async def test_a_round_its_absence_and_a_failing_relay() -> None:
    with serving(Relay(NET), Relay(NET, "error"), Relay(NET, "garbage")) as (ok, error, garbage):
        for relay in (ok, error, garbage):
            relay.latest = 3
        body = await fetch_json(round_url(ok, 3), 2.0)
        assert body["round"] == 3 and "signature" in body
        with pytest.raises(NotYet):
            await fetch_json(round_url(ok, 4), 2.0)
        with pytest.raises(OSError, match="HTTP 500"):
            await fetch_json(round_url(error, 3), 2.0)
        with pytest.raises(ValueError):
            await fetch_json(round_url(garbage, 3), 2.0)


async def test_only_http_is_asked() -> None:
    with pytest.raises(ValueError, match="not an http"):
        await fetch_json("file:///etc/passwd", 1.0)
