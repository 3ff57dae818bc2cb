"""Several nodes are one server for devices (v1.4, PROTOCOL.md "Accounts"): a device
revoked on one node signs its connections out on another at once."""

from __future__ import annotations

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
