"""Deleting an account (v1.4, PROTOCOL.md "Accounts"), as clients meet it, on SQLite and
PostgreSQL: the name goes everywhere public, the results stay, live entries are resigned,
closed tournaments' bundles gain an erasure and still verify, the name is never
registered again."""

from __future__ import annotations

import asyncio
import json

from server.audit.verify import verify_document
from tests.support.harness import Clock, create_msg, http_get, running_server


async def test_delete_account_keeps_results_under_the_pseudonym(db_url) -> None:
    clk = Clock()
    async with running_server(db_url, clk) as srv:
        op = await srv.admin()
        closed = (await op.ok(**create_msg(name="Before")))["tournament"]["id"]
        async with srv.client() as ana, srv.client() as bob, srv.client() as watcher:
            reg = await ana.ok(type="register", name="Ana")
            await bob.ok(type="register", name="bob")
            ana_id = reg["player"]["id"]
            for c in (ana, bob):
                await c.ok(type="join", tournament=closed)
                await c.ok(type="act", tournament=closed, seq=1, action={"kind": "resign"})
            await op.ok(type="close_tournament", tournament=closed)
            live = await op.ok(**create_msg(name="Now", ends_at="2026-11-30T20:00:00+00:00"))
            live_id = live["tournament"]["id"]
            await ana.ok(type="join", tournament=live_id)
            await watcher.ok(type="subscribe", tournament=live_id)

            await ana.err("bad_request", type="delete_account", confirm="ana")  # exactly
            clk.advance(5)
            gone = await ana.ok(type="delete_account", confirm="Ana")
            assert gone["type"] == "account_deleted"
            assert (await ana.recv())["type"] == "signed_out"
            await ana.err("unauthorized", type="auth", token=reg["token"])

            pseudonym = f"deleted-{ana_id}"
            page = await watcher.ok(type="standings_page", tournament=live_id, offset=0, limit=10)
            [row] = page["rows"]
            assert row["player"] == pseudonym and row["status"] == "resigned"  # a logged resign
            for name in ("Ana", "ANA", "Deleted-7", "deleted-999"):
                await watcher.err("name_taken", type="register", name=name)
            await watcher.err("not_found", type="player", name="Ana")
            assert (await watcher.ok(type="player", name=pseudonym))["player"]["name"] == pseudonym
            got = await watcher.ok(type="record", tournament=closed, player=pseudonym)
            record = got["record"]
            assert record["player"] == {"id": ana_id, "name": pseudonym, "bot": False}
            await watcher.err("not_found", type="record", tournament=closed, player="Ana")

        status, body = await asyncio.to_thread(
            http_get, f"{srv.http}/tournaments/{closed}/bundle.json"
        )
        assert status == 200
        bundle = json.loads(body)
        [erasure] = bundle["amendments"]
        assert erasure["kind"] == "erasure" and erasure["player_id"] == ana_id
        assert sorted(r["player"] for r in bundle["standings"]) == ["bob", pseudonym]
        assert "Ana" not in body.decode()
        report = verify_document(bundle)
        assert report.ok, report
        status, _ = await asyncio.to_thread(http_get, f"{srv.http}/players/Ana.json")
        assert status == 404
