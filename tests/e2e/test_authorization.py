"""Nobody sees or does what they must not."""

from __future__ import annotations

import hashlib

from sqlalchemy import text

from tests.support.harness import create_msg, running_server


async def test_players_reach_only_their_own_entry(sqlite_url) -> None:
    async with running_server(sqlite_url) as srv:
        op = await srv.admin()
        tid = (await op.ok(**create_msg()))["tournament"]["id"]
        async with srv.client() as alice, srv.client() as bob:
            await alice.ok(type="register", name="alice")
            await bob.ok(type="register", name="bob")
            a_state = await alice.ok(type="join", tournament=tid)
            # bob has no entry: there is no way to name alice's game in any message
            await bob.err("not_found", type="state", tournament=tid)
            await bob.err("not_found", type="act", tournament=tid, seq=1, action={"kind": "resign"})
            await bob.err("not_revealed", type="record", tournament=tid, player="alice")
            await bob.err(
                "bad_request",
                type="act",
                tournament=tid,
                seq=1,
                player="alice",
                action={"kind": "resign"},
            )
            b_state = await bob.ok(type="join", tournament=tid)
            await bob.ok(type="act", tournament=tid, seq=1, action={"kind": "resign"})
            again = await alice.ok(type="state", tournament=tid)
            assert again["seq"] == 0 and again["status"] == "playing"
            assert again["view"] == a_state["view"] and b_state["seq"] == 0
            for msg in (create_msg(), {"type": "close_tournament", "tournament": tid}):
                await alice.err("forbidden", **msg)
        await op.close()


async def test_tokens_are_stored_hashed_and_a_hash_is_no_token(sqlite_url) -> None:
    async with running_server(sqlite_url) as srv:
        async with srv.client() as c:
            token = (await c.ok(type="register", name="carol"))["token"]
        async with srv.app.store.engine.connect() as conn:
            stored = (await conn.execute(text("SELECT token_hash FROM players"))).scalar_one()
        assert stored == hashlib.sha256(token.encode()).hexdigest() and token not in stored
        async with srv.client() as thief:
            await thief.err("unauthorized", type="auth", token=stored)
            await thief.err("unauthorized", type="auth", token=token[:-1])
            await thief.err("unauthorized", type="join", tournament=1)
            authed = await thief.ok(type="auth", token=token)
            assert authed["player"]["name"] == "carol"
