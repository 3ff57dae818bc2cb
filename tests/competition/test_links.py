"""Linking a new device (server/competition/links.py, after RFC 8628): the new device
starts a link and shows its code, a signed-in device approves it, the new device polls
and fetches its token once; wrong codes are counted and pause approvals."""

from __future__ import annotations

from collections.abc import Awaitable
from datetime import timedelta

import pytest

from server.competition import links
from server.competition.errors import CompetitionError
from server.competition.service import Competition
from server.domain.accounts import LINK_ALPHABET, DeviceKind
from server.domain.model import PlayerInfo
from tests.support.harness import Clock

HERE = "192.0.2.1"


async def refused(code: str, reason: str | None, ask: Awaitable[object]) -> None:
    with pytest.raises(CompetitionError) as err:
        await ask
    assert (err.value.code, err.value.reason) == (code, reason or code)


async def test_a_link_started_approved_and_polled_signs_the_new_device_in(
    competition: Competition, alice: PlayerInfo, clock: Clock
) -> None:
    started = await competition.links.start("new phone")
    assert len(started.code) == 9 and started.code[4] == "-"
    assert set(started.code.replace("-", "")) <= set(LINK_ALPHABET)
    assert started.expires_at == clock() + timedelta(seconds=links.TTL_S)
    assert started.interval_s == links.INTERVAL_S
    await refused("authorization_pending", None, competition.links.poll(started.poll))
    label, expires = await competition.links.describe(alice, started.code.lower(), HERE)
    assert (label, expires) == ("new phone", started.expires_at)
    device = await competition.links.approve(alice, started.code, HERE)
    assert (device.player_id, device.kind, device.label) == (alice.id, DeviceKind.LINK, "new phone")
    clock.advance(links.INTERVAL_S)
    player, polled, token = await competition.links.poll(started.poll)
    assert player == alice and polled.id == device.id
    assert await competition.devices.authenticate(token) == (alice, polled)
    clock.advance(links.INTERVAL_S)
    await refused("not_found", "no_link", competition.links.poll(started.poll))  # once only


async def test_a_poll_within_the_interval_is_too_soon(
    competition: Competition, clock: Clock
) -> None:
    started = await competition.links.start(None)
    await refused("authorization_pending", None, competition.links.poll(started.poll))
    await refused("rate_limited", "poll_too_soon", competition.links.poll(started.poll))
    clock.advance(links.INTERVAL_S)
    await refused("authorization_pending", None, competition.links.poll(started.poll))


async def test_an_expired_link_can_be_neither_approved_nor_polled(
    competition: Competition, alice: PlayerInfo, clock: Clock
) -> None:
    started = await competition.links.start(None)
    clock.advance(links.TTL_S + 1)
    await refused("expired", "link_expired", competition.links.approve(alice, started.code, HERE))
    await refused("expired", "link_expired", competition.links.poll(started.poll))


async def test_an_approved_code_is_not_approved_twice(
    competition: Competition, alice: PlayerInfo
) -> None:
    started = await competition.links.start(None)
    await competition.links.approve(alice, started.code, HERE)
    await refused("not_found", "no_link_code", competition.links.approve(alice, started.code, HERE))


async def test_wrong_codes_are_counted_until_approvals_pause_for_a_minute(
    competition: Competition, alice: PlayerInfo, clock: Clock
) -> None:
    started = await competition.links.start(None)
    for wrong in ["BCDF-GHJK", "not a code", "", *["ZZZZZZZZ"] * (links.GUESSES_PER_MINUTE - 3)]:
        await refused("not_found", "no_link_code", competition.links.approve(alice, wrong, HERE))
    await refused(
        "rate_limited", "link_guesses", competition.links.approve(alice, started.code, HERE)
    )
    bob, _ = await competition.players.register("bob")  # the address counts too
    await refused(
        "rate_limited", "link_guesses", competition.links.approve(bob, started.code, HERE)
    )
    clock.advance(61)
    assert (await competition.links.approve(alice, started.code, HERE)).player_id == alice.id


async def test_a_bad_label_starts_no_link(competition: Competition) -> None:
    await refused("bad_request", "bad_label", competition.links.start("x" * 65))
