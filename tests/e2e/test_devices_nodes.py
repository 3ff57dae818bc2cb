"""Several nodes are one server for devices (v1.4, PROTOCOL.md "Accounts"): a device
revoked on one node signs its connections out on another at once."""

from __future__ import annotations

import asyncio
from contextlib import AsyncExitStack
from typing import Any

import asyncpg

from tests.e2e.test_nodes import client, open_now
from tests.support.harness import Client
from tests.support.processes import ServerProcess, cli


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


async def _refused(c: Client, error: str, **msg: Any) -> dict[str, Any]:
    """Client.err for messages with a `code` field of their own (link_approve)."""
    reply = await c.req(**msg)
    assert reply["type"] == "error" and reply["code"] == error, reply
    return reply


async def test_deletion_and_linking_hold_across_nodes(
    pg_url: str, nodes: list[ServerProcess]
) -> None:
    """One set of three processes (their start is most of the time) for both parts; the
    deletion first: the guesses after it limit the address (127.0.0.1) for a minute."""
    await _a_deletion_on_node_a_holds_on_b_and_c(pg_url, nodes)
    await _a_link_across_nodes_and_guesses_counted_across_nodes(nodes)


async def _a_deletion_on_node_a_holds_on_b_and_c(pg_url: str, nodes: list[ServerProcess]) -> None:
    """An operator deletes their account on node A: their connection on B is signed out
    and the token refused there; a device linked (approved on A) but not yet polled gets
    `not_found` on C; their live entry shows resigned under the pseudonym on C; the admin
    role is gone (the player row) and the name is taken on B."""
    a, b, c = nodes
    async with AsyncExitStack() as stack:
        on_a = await stack.enter_async_context(client(a))
        reg = await on_a.ok(type="register", name="amy")
        assert cli(pg_url, "admin", "grant", "amy").returncode == 0
        await on_a.ok(type="auth", token=reg["token"])  # a fresh session reads the role
        tid = (await on_a.ok(**open_now()))["tournament"]["id"]  # an operator's message
        on_b = await stack.enter_async_context(client(b))
        await on_b.ok(type="auth", token=reg["token"])
        await on_b.ok(type="join", tournament=tid)
        new = await stack.enter_async_context(client(c))
        link = await new.ok(type="link_start", label="tablet")
        await on_a.ok(type="link_approve", code=link["code"])  # approved, not yet polled

        await on_a.ok(type="delete_account", confirm="amy")
        assert (await on_b.push("signed_out", timeout=15)) == {"type": "signed_out"}
        await on_b.err("unauthorized", type="auth", token=reg["token"])
        await _refused(new, "not_found", type="link_poll", poll=link["poll"])
        gone = f"deleted-{reg['player']['id']}"
        page = await new.ok(type="standings_page", tournament=tid, offset=0, limit=9)
        assert [(r["player"], r["status"]) for r in page["rows"]] == [(gone, "resigned")]
        await on_b.err("name_taken", type="register", name="AMY")
        dsn = pg_url.replace("postgresql+asyncpg://", "postgresql://")
        db = await asyncpg.connect(dsn)
        try:
            row = await db.fetchrow(
                "SELECT name, admin FROM players WHERE id = $1", reg["player"]["id"]
            )
        finally:
            await db.close()
        assert (row["name"], row["admin"]) == (gone, False)


async def _a_link_across_nodes_and_guesses_counted_across_nodes(
    nodes: list[ServerProcess],
) -> None:
    """A code started on A is approved on B and polled on C. Wrong codes guessed by one
    player, spread over A, B and C, count together: the 11th in the minute is
    `rate_limited` on any node, the right code too."""
    a, b, c = nodes
    async with AsyncExitStack() as stack:
        new = await stack.enter_async_context(client(a))
        link = await new.ok(type="link_start", label="laptop")
        on_b = await stack.enter_async_context(client(b))
        reg = await on_b.ok(type="register", name="bea")
        approved = await on_b.ok(type="link_approve", code=link["code"])
        polled = await (await stack.enter_async_context(client(c))).ok(
            type="link_poll", poll=link["poll"]
        )
        assert polled["type"] == "registered" and polled["player"]["name"] == "bea"
        assert polled["device"]["id"] == approved["device"]["id"]

        guessers = [on_b] + [await stack.enter_async_context(client(n)) for n in (a, c)]
        for g in guessers[1:]:
            await g.ok(type="auth", token=reg["token"])
        other = await new.ok(type="link_start", label="x")
        for i in range(10):
            await _refused(guessers[i % 3], "not_found", type="link_approve", code="BBBB-BBBB")
        for g in guessers:
            limited = await _refused(g, "rate_limited", type="link_approve", code=other["code"])
            assert limited["limit"] == "link_codes"
