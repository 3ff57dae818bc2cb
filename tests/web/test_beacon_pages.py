"""A tournament's public beacon on the lobby and tournament pages, in headless Chromium:
a keyed test network served by a local relay (tests/support/relay.py), injected as the
server's configuration, and the server's clock driven by the test. Each page names the
network and the round, and says whether the round is still awaited, used (verified: the
deal comes from it) or, for a round that never came, that the tournament is void.
Screenshots at 1280×900 and 390×844, nothing scrolling sideways."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from server.audit import drand as pure
from server.competition.beacon_policy import BeaconConfig
from server.domain import timing
from tests.support.beacon import KeyedNetwork
from tests.support.harness import Clock, Running, running_server
from tests.support.relay import Relay, serving
from tests.web.conftest import create
from tests.web.test_first_contact import page_at
from tests.web.test_operator_fairplay import both_sizes

NET = KeyedNetwork("web-test", genesis_time=int(time.time()) - 3000, period=3, sk=4242)
DARK = KeyedNetwork("web-dark", genesis_time=int(time.time()) - 3000, period=3, sk=4343)


@pytest.fixture
async def driven(sqlite_url: str) -> AsyncIterator[Running]:
    """A server on a clock the test moves (its lifecycle ticked by the test)."""
    async with running_server(sqlite_url, Clock(datetime.now(UTC))) as running:
        yield running


async def settle(server: Running) -> None:
    """One tick, the beacon fetches it started, and the tick that acts on them."""
    lifecycle = server.app.competition.lifecycle
    await lifecycle.tick()
    await lifecycle.beacons.fetches_done()
    await lifecycle.tick()


async def summaries(server: Running) -> dict[str, dict[str, Any]]:
    async with server.client() as c:
        return {t["name"]: t for t in (await c.ok(type="tournaments"))["items"]}


async def beacon_of(page: Any, scope: str) -> tuple[str | None, str]:
    line = page.locator(f"{scope} .beacon")
    return await line.get_attribute("data-beacon"), await line.inner_text()


async def test_the_beacon_is_shown_awaited_used_and_void(browser: Any, driven: Running) -> None:
    server = driven
    with serving(Relay(NET)) as (relay,):  # nobody serves web-dark: its round never comes
        networks = {**pure.BUILT_IN, "web-test": NET.network, "web-dark": DARK.network}
        server.app.competition.catalogue.use_beacons(
            BeaconConfig(networks=networks, relays=(relay.url,), timeout_s=1.0, retry_s=0.0)
        )
        now = datetime.now(UTC)
        soon = await create(server, name="Beacon now", beacon={"network": "web-test"})
        later = await create(
            server,
            name="Beacon later",
            beacon={"network": "web-test"},
            starts_at=(now + timedelta(hours=2)).isoformat(),
            ends_at=(now + timedelta(hours=3)).isoformat(),
        )
        dark = await create(server, name="Beacon dark", beacon={"network": "web-dark"})
        assert soon["status"] == "scheduled" and soon["beacon"]["round"] < later["beacon"]["round"]

        errors: list[str] = []
        page = await page_at(browser, "desktop", errors)
        await page.goto(f"{server.http}/")
        card = f".tcard[data-id='{soon['id']}']"
        await page.wait_for_selector(f"{card} .beacon")
        state, text = await beacon_of(page, card)
        assert state == "awaited"
        assert f"drand web-test round {soon['beacon']['round']}" in text
        assert "opens once the round is published and verified" in text
        await page.goto(f"{server.http}/t/{soon['id']}")
        await page.wait_for_selector(".play .beacon, main .beacon")
        assert (await beacon_of(page, "main"))[0] == "awaited"

        relay.latest = soon["beacon"]["round"]  # the round is produced, then its time comes
        server.clock.advance(NET.network.round_time(relay.latest) - server.clock().timestamp())
        await settle(server)
        assert (await summaries(server))["Beacon now"]["status"] == "open"
        # the open page asks again once the start is past: it opens without a reload
        await page.wait_for_selector("main .beacon[data-beacon='used']", timeout=15_000)
        await page.wait_for_selector("main h1 .tag.st-open")
        server.clock.advance(11 * 60)  # web-dark's round: 10 minutes past, never had
        await settle(server)
        void = (await summaries(server))["Beacon dark"]
        async with server.client() as c:  # the pages' clock offset comes from the same clock
            assert (await c.ok(type="ping"))["server_time"] == timing.iso(server.clock())
        assert void["void"] is True and void["status"] == "closed"

        await page.goto(f"{server.http}/t/{soon['id']}")
        await page.wait_for_selector("main .beacon[data-beacon='used']")
        text = (await beacon_of(page, "main"))[1]
        assert f"round {soon['beacon']['round']}" in text and "the deal comes from it" in text
        assert soon["beacon"]["chain_hash"][:8] in text
        await both_sizes(page, "tournament-beacon")

        await page.goto(f"{server.http}/")
        await page.wait_for_selector(f"{card} .beacon[data-beacon='used']")
        later_card = f".tcard[data-id='{later['id']}']"
        assert (await beacon_of(page, later_card))[0] == "awaited"
        dark_card = f".tcard[data-id='{dark['id']}']"
        state, text = await beacon_of(page, dark_card)
        assert state == "void" and "drand web-dark round" in text
        assert "closed with no entries" in text
        assert await page.locator(f"{dark_card} .tline .tag.void").inner_text() == "void"
        closed_ago = f"{dark_card} .countdown:has-text('ago')"  # once the page's clock is synced
        await page.wait_for_selector(closed_ago)
        await both_sizes(page, "lobby-beacon")

        await page.goto(f"{server.http}/t/{dark['id']}")
        await page.wait_for_selector("main .beacon[data-beacon='void']")
        assert await page.locator("main h1 .tag.void").count() == 1
        assert not errors, errors
