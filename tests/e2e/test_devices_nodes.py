"""Several nodes are one server for devices (v1.4, PROTOCOL.md "Accounts"): a device
revoked on one node signs its connections out on another at once."""

from __future__ import annotations

import asyncio
from contextlib import AsyncExitStack

from tests.e2e.test_nodes import client
from tests.support.processes import ServerProcess


async def test_a_device_revoked_on_node_a_is_signed_out_on_node_b(
    nodes: list[ServerProcess],
) -> None:
    a, b = nodes[0], nodes[1]
    async with AsyncExitStack() as stack:
        on_a = await stack.enter_async_context(client(a))
        on_b = await stack.enter_async_context(client(b))
        keeper = await stack.enter_async_context(client(b))
        lost = await on_b.ok(type="register", name="eve", device="lost phone")
        kept = await on_a.ok(type="auth", token=lost["token"])
        assert kept["device"] == lost["device"]
        # another player signed in on node B: untouched
        other = await keeper.ok(type="register", name="fay")
        await keeper.ok(type="devices")
        await on_a.ok(type="revoke_device", device=lost["device"]["id"])
        assert (await on_a.recv())["type"] == "signed_out"
        pushed = await on_b.recv(timeout=15)  # the notice crosses within a second or so
        assert pushed == {"type": "signed_out"}
        await on_b.err("unauthorized", type="devices")
        await on_b.err("unauthorized", type="auth", token=lost["token"])
        await keeper.ok(type="devices")  # another player's connection is not touched
        assert other["player"]["name"] == "fay"


async def test_a_device_revoked_while_it_signs_in_on_other_nodes_stays_out(
    nodes: list[ServerProcess],
) -> None:
    """Connections on nodes B and C sign in with a device at the very moment node A
    revokes it: each either is refused or is told `signed_out`; none is left signed in,
    and the token signs in nowhere afterwards."""
    a, b, c = nodes
    async with AsyncExitStack() as stack:
        on_a = await stack.enter_async_context(client(a))
        racers = [await stack.enter_async_context(client(n)) for n in (b, c) * 6]
        reg = await on_a.ok(type="register", name="gil", device="lost")
        revoke = on_a.req(type="revoke_device", device=reg["device"]["id"])
        answers = await asyncio.gather(
            revoke, *(r.req(type="auth", token=reg["token"]) for r in racers)
        )
        assert answers[0]["type"] == "device_revoked"
        for racer, answer in zip(racers, answers[1:], strict=True):
            if answer["type"] == "authed":  # signed in before the revocation committed
                assert (await racer.push("signed_out", timeout=15)) == {"type": "signed_out"}
            else:
                assert answer["code"] == "unauthorized", answer
            await racer.err("unauthorized", type="devices")
            await racer.err("unauthorized", type="auth", token=reg["token"])
