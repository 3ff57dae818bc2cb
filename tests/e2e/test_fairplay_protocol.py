"""Fair play over a real connection (PROTOCOL v1.3), on SQLite and PostgreSQL: an admin's
`disqualify` is answered `amended` and a watcher gets fresh standings with the entry
unranked; refusals (not an admin, bad shapes, no entry, twice) change nothing; after the
close the bundle over HTTP carries the amendment and verifies; `fairplay_report` (admin)
says why with the figures."""

from __future__ import annotations

import asyncio
import csv
import io
import json

import pytest
from websockets.asyncio.client import connect

from server.audit.verify import verify_document
from server.domain.ranking import Result, standings_without
from tests.support.factories import figures
from tests.support.harness import Client, create_msg, http_get, running_server


@pytest.fixture
async def srv(db_url):
    async with running_server(db_url) as running:
        yield running


async def player(srv, name: str) -> Client:
    c = Client(await connect(srv.ws_url), srv.frames)
    reg = await c.ok(type="register", name=name)
    await c.ok(type="auth", token=reg["token"])
    return c


async def slow(c: Client, **msg: object) -> dict[str, object]:
    """A request whose reply waits for the ratings' worker process (started, on a loaded
    machine, in more than the client's usual 5 s): the close, an amendment."""
    msg["id"] = f"slow-{msg['type']}"
    await c.ws.send(json.dumps(msg))
    while True:
        reply = await c.recv(timeout=120)
        if reply.get("re") == msg["id"]:
            assert reply["type"] != "error", reply
            return reply
        c.pushes.append(reply)


async def play(c: Client, tid: int, moves: int) -> None:
    state = await c.ok(type="join", tournament=tid)
    for seq in range(1, moves + 1):
        if not state["view"]["legal"]:
            break
        action = {"kind": "move", **state["view"]["legal"][0]}
        state = await c.ok(type="act", tournament=tid, seq=seq, action=action)


async def test_disqualify_over_the_protocol_before_and_after_the_close(srv) -> None:
    op = await srv.admin("op")
    tid = (await op.ok(**create_msg(time_limit_s=None)))["tournament"]["id"]
    ann, bob, cid = [await player(srv, n) for n in ("ann", "bob", "cid")]
    for c, n in ((ann, 8), (bob, 4), (cid, 2)):
        await play(c, tid, n)
    async with srv.client() as watcher:
        first = await watcher.ok(type="subscribe", tournament=tid)
        assert all("disqualified" not in r for r in first["rows"])
        leader = first["rows"][0]["player"]

        await bob.err("forbidden", type="disqualify", tournament=tid, player=leader, reason="x")
        await op.err("bad_request", type="disqualify", tournament=tid, player=leader)
        await op.err("bad_request", type="disqualify", tournament=tid, player=leader, reason=" ")
        await op.err("bad_request", type="disqualify", tournament=tid, player=leader, reason=7)
        await op.err("not_found", type="disqualify", tournament=tid, player="nobody", reason="x")
        await op.err("not_found", type="disqualify", tournament=999, player=leader, reason="x")
        for kind in (
            {"type": "disqualify", "player": leader, "reason": "x"},
            {"type": "fairplay_report"},
        ):
            await watcher.err("unauthorized", tournament=tid, **kind)  # no account
        page = await watcher.ok(type="standings_page", tournament=tid)
        assert all(r["rank"] is not None for r in page["rows"])  # nothing changed

        reply = await op.ok(type="disqualify", tournament=tid, player=leader, reason="shared line")
        assert reply["type"] == "amended"
        assert (reply["tournament"], reply["player"]) == (tid, leader)
        while True:  # the fresh push (pushes of play before it may come first)
            push = await watcher.push("standings")
            if push["rows"][-1].get("disqualified"):
                break
        last = push["rows"][-1]
        assert (last["player"], last["rank"], last["disqualified"]) == (leader, None, "shared line")
        shown = ("status", "progress", "resets", "score", "time_ms")
        results = [Result(r["player"], figures(*(r[k] for k in shown))) for r in push["rows"]]
        want = standings_without(results, {leader: "shared line"})
        assert [(r["rank"], r["player"]) for r in push["rows"]] == [
            (w.rank, w.player) for w in want
        ]
        await op.err("bad_request", type="disqualify", tournament=tid, player=leader, reason="y")

    await slow(op, type="close_tournament", tournament=tid)
    late = next(r["player"] for r in first["rows"] if r["player"] != leader)
    code, body = await asyncio.to_thread(http_get, f"{srv.http}/tournaments/{tid}/bundle.json")
    assert code == 200 and json.loads(body)["amendments"] == []  # built and kept
    bundles = srv.app.competition.bundles
    assert bundles is not None and bundles.builds == 1
    async with srv.client() as late_watcher:  # a watcher of the closed tournament
        closed = await late_watcher.ok(type="subscribe", tournament=tid)
        assert [r.get("disqualified") for r in closed["rows"]].count(None) == 2
        reply = await slow(op, type="disqualify", tournament=tid, player=late, reason="solver")
        assert reply == {"type": "amended", "re": reply["re"], "tournament": tid, "player": late}
        while True:  # the amendment's fresh push
            push = await late_watcher.push("standings")
            if any(r.get("disqualified") == "solver" for r in push["rows"]):
                break
        assert push["final"] and push["version"] > closed["version"]
        assert [r["rank"] for r in push["rows"]] == [1, None, None]
    code, body = await asyncio.to_thread(http_get, f"{srv.http}/tournaments/{tid}/bundle.json")
    assert bundles.builds == 2  # the amendment invalidated the kept bundle
    assert code == 200, body[:200]
    bundle = json.loads(body)
    assert [a["player"] for a in bundle["amendments"]] == [late]  # the first was no amendment
    assert [r["rank"] for r in bundle["standings"]][1:] == [None, None]
    assert bundle["standings"][0]["rank"] == 1
    report = verify_document(bundle)
    assert report.ok, report.error
    assert any("fair play: 2 disqualified, 1 of them" in line for line in report.checked)

    code, body = await asyncio.to_thread(http_get, f"{srv.http}/tournaments/{tid}/results.csv")
    table = list(csv.DictReader(io.StringIO(body.decode(), newline="")))
    assert [(r["rank"], r["disqualified"]) for r in table][1:] == [
        ("", "shared line" if table[1]["player"] == leader else "solver"),
        ("", "solver" if table[1]["player"] == leader else "shared line"),
    ]
    assert table[0]["rank"] == "1" and table[0]["disqualified"] == ""
    found = await op.ok(type="fairplay_report", tournament=tid, moves=2)
    assert found["type"] == "fairplay_report"
    same = [f for f in found["findings"] if f["kind"] == "same_opening"]
    assert same and "first 2 moves" in same[0]["why"]
    new = {f["players"][0] for f in found["findings"] if f["kind"] == "new_account"}
    assert {"ann", "bob", "cid"} <= new  # registered seconds before joining
    await bob.err("forbidden", type="fairplay_report", tournament=tid)
