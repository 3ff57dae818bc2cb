"""Linking a new device (v1.4, PROTOCOL.md "Accounts", after RFC 8628), as clients meet
it, on SQLite and PostgreSQL: start, approve, poll; codes single use, expiring, hashed;
polls paced; wrong codes limited."""

from __future__ import annotations

import hashlib
from typing import Any

from sqlalchemy import text

from tests.support.harness import Client, Clock, create_msg, running_server

ALPHABET = set("BCDFGHJKLMNPQRSTVWXZ")


async def refused(client: Client, error: str, **msg: Any) -> dict[str, Any]:
    """Client.err for messages with a `code` field of their own."""
    reply = await client.req(**msg)
    assert reply["type"] == "error" and reply["code"] == error, reply
    return reply


async def test_a_linked_device_fetches_its_token_once_and_plays(db_url) -> None:
    clk = Clock()
    async with running_server(db_url, clk) as srv:
        op = await srv.admin()
        tid = (await op.ok(**create_msg()))["tournament"]["id"]
        async with srv.client() as phone, srv.client() as laptop:
            await phone.ok(type="register", name="gil", device="phone")
            link = await laptop.ok(type="link_start", label="laptop")
            code, poll = link["code"], link["poll"]
            assert len(code) == 9 and code[4] == "-" and set(code.replace("-", "")) <= ALPHABET
            assert 1 <= link["interval_s"] <= 5 and len(poll) >= 43
            await laptop.err("authorization_pending", type="link_poll", poll=poll)
            await laptop.err("rate_limited", type="link_poll", poll=poll)  # too soon
            clk.advance(link["interval_s"])
            await laptop.err("authorization_pending", type="link_poll", poll=poll)
            await laptop.err("unauthorized", type="join", tournament=tid)
            typed = code.lower().replace("-", "")  # any case, the hyphen optional
            approved = await phone.ok(type="link_approve", code=typed)
            assert approved["device"]["label"] == "laptop"
            listed = (await phone.ok(type="devices"))["items"]
            assert [(d["kind"], d["label"]) for d in listed] == [
                ("token", "phone"),
                ("link", "laptop"),
            ]
            await refused(phone, "not_found", type="link_approve", code=code)  # used
            clk.advance(link["interval_s"])
            got = await laptop.ok(type="link_poll", poll=poll)
            assert got["type"] == "registered" and got["player"]["name"] == "gil"
            assert got["device"] == {
                "id": approved["device"]["id"],
                "label": "laptop",
                "kind": "link",
            }
            await laptop.ok(type="join", tournament=tid)  # signed in as gil
            clk.advance(link["interval_s"])
            await laptop.err("not_found", type="link_poll", poll=poll)  # once
        async with srv.client() as again:
            await again.ok(type="auth", token=got["token"])
        async with srv.app.store.engine.connect() as conn:
            rows = (await conn.execute(text("SELECT code_hash, poll_hash FROM link_codes"))).all()
        sha = lambda s: hashlib.sha256(s.encode()).hexdigest()  # noqa: E731
        assert rows == [(sha(code.replace("-", "")), sha(poll))]


async def test_codes_expire_and_an_unfetched_device_leaves_the_list(db_url) -> None:
    clk = Clock()
    async with running_server(db_url, clk) as srv, srv.client() as phone, srv.client() as new:
        await phone.ok(type="register", name="hal")
        late = await new.ok(type="link_start")
        approved = await new.ok(type="link_start", label="tablet")
        await phone.ok(type="link_approve", code=approved["code"])
        assert len((await phone.ok(type="devices"))["items"]) == 2
        clk.advance(601)  # the default ten minutes are over
        await refused(phone, "expired", type="link_approve", code=late["code"])
        await new.err("expired", type="link_poll", poll=late["poll"])
        await new.err("expired", type="link_poll", poll=approved["poll"])
        assert len((await phone.ok(type="devices"))["items"]) == 1  # its token never made
        clk.advance(3600)  # kept an hour past its expiry, then forgotten
        await refused(phone, "not_found", type="link_approve", code=late["code"])
        await new.err("not_found", type="link_poll", poll=late["poll"])


async def test_a_device_revoked_before_its_poll_gets_nothing(db_url) -> None:
    async with running_server(db_url) as srv, srv.client() as phone, srv.client() as new:
        await phone.ok(type="register", name="ida")
        link = await new.ok(type="link_start", label="stolen")
        device = (await phone.ok(type="link_approve", code=link["code"]))["device"]
        await phone.ok(type="revoke_device", device=device["id"])
        await new.err("not_found", type="link_poll", poll=link["poll"])
        await new.err("not_found", type="link_poll", poll="x" * 43)


async def test_wrong_codes_are_limited_per_player_and_address(db_url) -> None:
    clk = Clock()
    async with (
        running_server(db_url, clk) as srv,
        srv.client() as guesser,
        srv.client() as neighbour,
        srv.client() as new,
    ):
        await guesser.ok(type="register", name="jon")
        await neighbour.ok(type="register", name="kim")  # the same address (127.0.0.1)
        link = await new.ok(type="link_start", label="x")
        for _ in range(10):
            await refused(guesser, "not_found", type="link_approve", code="BBBB-BBBB")
        limited = await refused(guesser, "rate_limited", type="link_approve", code=link["code"])
        assert limited["limit"] == "link_codes"  # the right code too
        await refused(neighbour, "rate_limited", type="link_approve", code=link["code"])
        clk.advance(61)
        await neighbour.ok(type="link_approve", code=link["code"])


async def test_link_start_counts_as_a_registration(sqlite_url) -> None:
    from server.net.limits import Registrations

    async with running_server(sqlite_url) as srv:
        srv.app.registrations = Registrations(3)
        async with srv.client() as c:
            await c.ok(type="register", name="lou")
            await c.err("bad_request", type="link_start", label="")  # counted all the same
            await c.ok(type="link_start")
            reply = await c.err("rate_limited", type="link_start")
            assert "limit" not in reply  # a per-address limit: retried later
            await c.err("rate_limited", type="register", name="max")
