"""Devices (v1.4 accounts, PROTOCOL.md "Accounts"), as a client meets them, on SQLite and
PostgreSQL: every token a device, listed, revoked one by one or all but this one; a
revoked device's connections are told `signed_out` and lose their authentication."""

from __future__ import annotations

import hashlib

from sqlalchemy import text

from server.domain.accounts import DeviceKind
from server.store import devices as stored
from tests.support.harness import Clock, create_msg, running_server


async def test_register_makes_a_labelled_device_and_auth_names_it(db_url) -> None:
    clk = Clock()
    async with running_server(db_url, clk) as srv:
        async with srv.client() as phone:
            reg = await phone.ok(type="register", name="ana", device="Ana's phone")
            assert reg["device"]["label"] == "Ana's phone" and reg["device"]["kind"] == "token"
            await phone.err("bad_request", type="register", name="ana2", device="")
            await phone.err("bad_request", type="register", name="ana3", device="x" * 65)
            await phone.err("bad_request", type="register", name="ana4", device="a\nb")
            clk.advance(60)
            async with srv.client() as again:
                authed = await again.ok(type="auth", token=reg["token"])
                assert authed["device"] == reg["device"]
                listed = await again.ok(type="devices")
            [item] = listed["items"]
            assert item["id"] == reg["device"]["id"] and item["current"] is True
            assert item["last_seen_at"] > item["created_at"]  # the auth a minute later
            # a bad label changed nothing: no player ana2..ana4
            async with srv.client() as c:
                await c.ok(type="register", name="ana2")
        async with srv.app.store.engine.connect() as conn:
            hashes = (await conn.execute(text("SELECT token_hash FROM devices"))).scalars().all()
        assert hashlib.sha256(reg["token"].encode()).hexdigest() in hashes
        assert reg["token"] not in hashes


async def test_revoking_signs_the_device_out_and_its_token_is_refused(db_url) -> None:
    async with running_server(db_url) as srv:
        op = await srv.admin()
        tid = (await op.ok(**create_msg()))["tournament"]["id"]
        async with srv.client() as phone, srv.client() as laptop, srv.client() as other:
            token = (await phone.ok(type="register", name="bea", device="phone"))["token"]
            await laptop.ok(type="auth", token=token)  # the same device, two connections
            await laptop.ok(type="subscribe", tournament=tid)
            await other.ok(type="register", name="cid")
            device = (await phone.ok(type="devices"))["items"][0]["id"]
            await other.err("not_found", type="revoke_device", device=device)  # not cid's
            reply = await phone.ok(type="revoke_device", device=device)
            assert reply == {"type": "device_revoked", "device": device, "re": reply["re"]}
            assert (await phone.recv())["type"] == "signed_out"  # after the reply
            assert await laptop.push("signed_out")
            for c in (phone, laptop):
                await c.err("unauthorized", type="devices")
                await c.err("unauthorized", type="join", tournament=tid)
                await c.ok(type="standings_page", tournament=tid, offset=0, limit=10)
            await phone.err("unauthorized", type="auth", token=token)
            await other.ok(type="join", tournament=tid)  # cid is not touched
            await other.ok(type="devices")


async def test_revoke_other_devices_keeps_this_one(db_url) -> None:
    async with running_server(db_url) as srv:
        async with srv.client() as a, srv.client() as b:
            token = (await a.ok(type="register", name="dee"))["token"]
            await b.ok(type="auth", token=token)
            reply = await a.ok(type="revoke_other_devices")
            assert reply["count"] == 0  # one device, two connections: this one
            await b.ok(type="devices")
        async with srv.app.store.engine.connect() as conn:
            player_id = (
                await conn.execute(text("SELECT id FROM players WHERE name = 'dee'"))
            ).scalar_one()
        now = srv.clock()
        extra = [
            await stored.add(srv.app.store, player_id, f"h{i}", DeviceKind.LINK, "x", now)
            for i in range(3)
        ]
        async with srv.client() as a:
            await a.ok(type="auth", token=token)
            listed = (await a.ok(type="devices"))["items"]
            assert [d["id"] for d in listed][1:] == [d.id for d in extra]
            assert [d["current"] for d in listed] == [True, False, False, False]
            assert (await a.ok(type="revoke_other_devices"))["count"] == 3
            assert [d["id"] for d in (await a.ok(type="devices"))["items"]] == [listed[0]["id"]]
            assert (await a.ok(type="revoke_other_devices"))["count"] == 0
