"""Deleting an account (v1.4, PROTOCOL.md "Accounts"), as clients meet it, on SQLite and
PostgreSQL: the name goes everywhere public, the results stay, live entries are resigned,
closed tournaments' bundles gain an erasure and still verify, the name is never
registered again."""

from __future__ import annotations

import asyncio
import json

from server.audit.verify import verify_document
from server.competition import ratings
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


async def test_the_pseudonym_is_re_sorted_among_ties_everywhere(db_url) -> None:
    """ "ada" and "cat" tie (both resign at once): ada first by name. After ada's account
    is deleted, cat comes before `deleted-N` in every table, rows compared in order: pushed
    and paged standings of a live tournament; paged standings, standings.json,
    results.csv, the bundle and the rating leaderboard of one closed before."""
    clk = Clock()
    async with running_server(db_url, clk) as srv:
        op = await srv.admin()
        closed = (await op.ok(**create_msg(name="Before", time_limit_s=None)))["tournament"]["id"]
        live = (await op.ok(**create_msg(name="Now", ends_at="2026-11-30T20:00:00+00:00")))[
            "tournament"
        ]["id"]
        async with srv.client() as ada, srv.client() as cat, srv.client() as watcher:
            ada_id = (await ada.ok(type="register", name="ada"))["player"]["id"]
            await cat.ok(type="register", name="cat")
            for tid in (closed, live):
                for c in (ada, cat):
                    await c.ok(type="join", tournament=tid)
                    await c.ok(type="act", tournament=tid, seq=1, action={"kind": "resign"})
            await op.ok(type="close_tournament", tournament=closed)
            await ratings.settle()
            await watcher.ok(type="subscribe", tournament=live)
            for tid in (closed, live):
                page = await watcher.ok(type="standings_page", tournament=tid, offset=0, limit=9)
                assert [r["player"] for r in page["rows"]] == ["ada", "cat"]
            board = await watcher.ok(type="leaderboard", game="gaps")
            assert [r["player"] for r in board["rows"]] == ["ada", "cat"]
            assert board["rows"][0]["rating"] == board["rows"][1]["rating"]  # tied

            await ada.ok(type="delete_account", confirm="ada")
            gone = f"deleted-{ada_id}"
            after = ["cat", gone]
            for tid in (closed, live):
                page = await watcher.ok(type="standings_page", tournament=tid, offset=0, limit=9)
                assert [r["player"] for r in page["rows"]] == after, tid

            def pushed() -> list[list[str]]:
                frames = (json.loads(f) for f in watcher.received)
                return [
                    [r["player"] for r in m["rows"]]
                    for m in frames
                    if m["type"] == "standings" and m.get("tournament") == live
                ]

            while not any(gone in p for p in pushed()):
                await watcher.recv(timeout=30)
            assert [p for p in pushed() if gone in p][-1] == after

        async def get(path: str) -> bytes:
            status, body = await asyncio.to_thread(http_get, f"{srv.http}{path}")
            assert status == 200, (path, status)
            return body

        page = json.loads(await get(f"/tournaments/{closed}/standings.json"))
        assert [r["player"] for r in page["rows"]] == after
        csv_rows = (await get(f"/tournaments/{closed}/results.csv")).decode().splitlines()[1:]
        assert [line.split(",")[1] for line in csv_rows] == after
        bundle = json.loads(await get(f"/tournaments/{closed}/bundle.json"))
        assert [r["player"] for r in bundle["standings"]] == after  # in order, not sorted()
        assert verify_document(bundle).ok
        board = json.loads(await get("/leaderboard/gaps.json"))
        assert [r["player"] for r in board["rows"]] == after
