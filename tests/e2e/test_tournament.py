"""A whole tournament over real WebSocket connections, then the offline verifier."""

from __future__ import annotations

import asyncio
import json
import random

import pytest
from websockets.asyncio.client import connect

from server.audit.verify import verify_document
from tests.support.harness import Client, create_msg, http_get, running_server


async def play(c: Client, tid: int, state: dict, rnd: random.Random, limit: int) -> dict:
    """Random legal play through the protocol (redeal when blocked) for `limit` actions."""
    for _ in range(limit):
        if state["status"] != "playing":
            break
        view = state["view"]
        if view["legal"]:
            action = {"kind": "move", **rnd.choice(view["legal"])}
        else:
            assert view["blocked"]
            action = {"kind": "redeal"}
        state = await c.ok(type="act", tournament=tid, seq=state["seq"] + 1, action=action)
        assert state["events"], state
    return state


@pytest.fixture(params=["sqlite", "postgresql"])
def any_db(request):
    return request.getfixturevalue("sqlite_url" if request.param == "sqlite" else "pg_url")


async def test_full_gaps_tournament(any_db) -> None:
    async with running_server(any_db) as srv:
        op = await srv.admin()
        t = (await op.ok(**create_msg()))["tournament"]
        tid = t["id"]
        assert t["status"] == "open" and len(t["commitment"]) == 64 and "seed" not in t
        watcher = await srv.admin("watcher")
        first = await watcher.ok(type="subscribe", tournament=tid)
        assert first["type"] == "standings" and first["rows"] == [] and not first["final"]

        players = {}
        for name in ("alice", "bob", "carol", "dave"):
            c = Client(await connect(srv.ws_url), srv.frames)
            reg = await c.ok(type="register", name=name)
            players[name] = (c, reg)
        grids = []
        states = {}
        for name, (c, _) in players.items():
            st = await c.ok(type="join", tournament=tid)
            assert st["seq"] == 0 and st["status"] == "playing" and st["game"] == "gaps"
            grids.append(st["view"]["grid"])
            states[name] = st
            srv.clock.advance(1)
        assert all(g == grids[0] for g in grids)  # the same deal for everyone

        rnd = random.Random(5)
        alice, bob, carol, dave = (players[n][0] for n in ("alice", "bob", "carol", "dave"))
        states["alice"] = await play(alice, tid, states["alice"], rnd, 2000)  # to the end
        assert states["alice"]["status"] in ("won", "lost")
        assert (
            states["alice"]["progress"]["redeals_used"] == 2 or states["alice"]["status"] == "won"
        )
        states["bob"] = await play(bob, tid, states["bob"], rnd, 10)
        resigned = await bob.ok(
            type="act", tournament=tid, seq=states["bob"]["seq"] + 1, action={"kind": "resign"}
        )
        assert resigned["status"] == "resigned"
        states["carol"] = await play(carol, tid, states["carol"], rnd, 5)
        push = await watcher.push("standings")
        while len(push["rows"]) < 4:
            push = await watcher.push("standings")
        assert {r["player"] for r in push["rows"]} == {"alice", "bob", "carol", "dave"}

        # carol's game times out at her deadline (15 minutes); dave's is still running.
        srv.clock.advance(16 * 60)
        await srv.tick()
        st = await carol.ok(type="state", tournament=tid)
        assert st["status"] == "timed_out" and st["time_ms"] == 900_000
        await carol.err(
            "closed", type="act", tournament=tid, seq=st["seq"] + 1, action={"kind": "resign"}
        )

        # nothing public carries the seed before the close
        await dave.err("not_revealed", type="record", tournament=tid, player="alice")
        code, _ = await asyncio.to_thread(http_get, f"{srv.http}/tournaments/{tid}/bundle.json")
        assert code == 404
        listing = await dave.ok(type="tournaments")
        assert "seed" not in listing["items"][0]

        srv.clock.advance(60)
        frames_before_close = len(srv.frames)
        closed = await op.ok(type="close_tournament", tournament=tid)
        seed = closed["tournament"]["seed"]
        final = await watcher.push("standings")
        while not final["final"]:
            final = await watcher.push("standings")
        closed_push = await watcher.push("closed")
        assert closed_push == {"type": "closed", "tournament": tid, "seed": seed} | {
            "log_root": closed_push["log_root"]
        }
        rec = (await dave.ok(type="record", tournament=tid, player="alice"))["record"]
        assert rec["tournament"]["seed"] == seed and verify_document(rec).ok
        # alice's last acknowledgement is a receipt the published record reproduces
        assert rec["log_hash"] == states["alice"]["log_hash"]

        code, body = await asyncio.to_thread(http_get, f"{srv.http}/tournaments/{tid}/bundle.json")
        assert code == 200
        bundle = json.loads(body)
        report = verify_document(bundle)
        assert report.ok, report.error
        assert bundle["log_root"] == closed_push["log_root"]
        bob_record = next(r for r in bundle["records"] if r["player"]["name"] == "bob")
        assert bob_record["log_hash"] == resigned["log_hash"]
        statuses = {r["player"]["name"]: r["result"]["status"] for r in bundle["records"]}
        assert statuses["bob"] == "resigned" and statuses["carol"] == "timed_out"
        assert statuses["dave"] == "timed_out"
        # the seed appeared in no frame before the reveal
        assert frames_before_close > 20
        assert all(seed not in f for f in srv.frames[:frames_before_close])

        # a watcher who comes after the close gets the final window, then the reveal
        late = Client(await connect(srv.ws_url), srv.frames)
        window = await late.ok(type="subscribe", tournament=tid)
        assert window["type"] == "standings" and window["final"] is True
        assert await late.push("closed") == closed_push
        again = await late.ok(type="subscribe", tournament=tid)  # on the same connection
        assert again["final"] is True
        await late.ok(type="ping")  # anything sent after the reply has arrived by now
        assert [p["type"] for p in late.pushes] == []  # it had the reveal already
        await late.close()
        for c, _ in players.values():
            await c.close()
        await op.close()
        await watcher.close()
