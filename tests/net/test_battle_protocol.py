"""A team battle over a real WebSocket, on SQLite and PostgreSQL (v1.4, PROTOCOL.md "Team
battles", RECORD.md "Additions (v1.4): clubs and team battles"): members of three clubs
join under their club (a member of two chooses), play and are closed; every standings
message and standings.json carries `clubs` and every row its `club`, live and final;
records carry `club` and the tournament `club` and `battle`; results.csv names each
entry's club; the bundle verifies with both verifiers, with an amendment too, and a
tampered one is refused by both; no record, bundle or standings carries the entry code."""

from __future__ import annotations

import asyncio
import copy
import csv
import io
import json
import random
from pathlib import Path
from typing import Any

from server.audit.verify import verify_document
from tests.support.harness import Client, Running, create_msg, http_get, random_move, running_server
from tests.web.support import require_node
from tests.web.test_js import js_verdicts

CODE = "Battle-2026"


async def _get(srv: Running, path: str) -> bytes:
    status, body = await asyncio.to_thread(http_get, srv.http + path)
    assert status == 200, (path, status, body[:200])
    return body


async def _play(c: Client, tid: int, moves: int, seed: int, **join: Any) -> None:
    state = await c.ok(type="join", tournament=tid, code=CODE, **join)
    rnd = random.Random(seed)
    for _ in range(moves):
        if state["status"] != "playing":
            return
        seq = state["seq"] + 1
        state = await c.ok(type="act", tournament=tid, seq=seq, action=random_move(state, rnd))


def _clubs_ok(message: dict[str, Any], named: list[int], club_of: dict[str, int]) -> None:
    """A battle's standings: `clubs` has each named club once; each row its club."""
    assert sorted(c["club"] for c in message["clubs"]) == sorted(named), message
    assert all(set(c) == {"club", "name", "score", "counted_ranks"} for c in message["clubs"])
    assert {r["player"]: r["club"] for r in message["rows"]} == {
        r["player"]: club_of[r["player"]] for r in message["rows"]
    }


async def test_a_team_battle_end_to_end(db_url: str, tmp_path: Path) -> None:
    async with running_server(db_url) as srv:
        names = ("Lea", "Ana", "Bo", "Cy", "Di", "Ed")
        async with (
            srv.client() as lea,
            srv.client() as ana,
            srv.client() as bo,
            srv.client() as cy,
            srv.client() as di,
            srv.client() as ed,
            srv.client() as anon,
        ):
            cs = dict(zip(names, (lea, ana, bo, cy, di, ed), strict=True))
            for name, c in cs.items():
                await c.ok(type="register", name=name)
            clubs = [
                (await lea.ok(type="create_club", name=n))["club"]
                for n in ("Owls", "Foxes", "Larks")
            ]
            owls, foxes, larks = (c["id"] for c in clubs)
            for who, club in (("Ana", 0), ("Bo", 0), ("Cy", 1), ("Di", 0), ("Di", 1)):
                await cs[who].ok(type="join_club", code=clubs[club]["invite"])
            named = [owls, foxes, larks]
            battle = {"clubs": named, "counted": 2}
            t = (await lea.ok(**create_msg(battle=battle, entry_code=CODE)))["tournament"]
            tid = t["id"]
            assert t["battle"] == battle and t["rated"] is False

            window = await anon.ok(type="subscribe", tournament=tid)
            assert window["clubs"] == [
                {"club": c, "name": n, "score": 0, "counted_ranks": []}
                for c, n in ((owls, "Owls"), (foxes, "Foxes"), (larks, "Larks"))
            ]
            for c, error in ((ed, "forbidden"), (di, "bad_request")):  # no club; two clubs
                reply = await c.req(type="join", tournament=tid, code=CODE)
                assert reply.get("code") == error, reply
            club_of = {"Ana": owls, "Bo": owls, "Cy": foxes, "Di": foxes}
            await _play(ana, tid, 8, 1)
            await _play(bo, tid, 2, 2)
            await _play(cy, tid, 6, 3)
            await _play(di, tid, 4, 4, club=foxes)

            pushed = await anon.push("standings")
            _clubs_ok(pushed, named, club_of)
            page = await anon.ok(type="standings_page", tournament=tid, offset=0, limit=10)
            _clubs_ok(page, named, club_of)
            live = json.loads(await _get(srv, f"/tournaments/{tid}/standings.json"))
            _clubs_ok(live, named, club_of)
            assert live["clubs"][-1]["club"] == larks and live["clubs"][-1]["score"] == 0

            await lea.ok(type="close_tournament", tournament=tid)
            final = await anon.ok(type="standings_page", tournament=tid, offset=0, limit=10)
            _clubs_ok(final, named, club_of)
            record = (await anon.ok(type="record", tournament=tid, player="Cy"))["record"]
            assert record["club"] == foxes
            assert (record["tournament"]["battle"], record["tournament"]["club"]) == (battle, None)

            bundle = json.loads(await _get(srv, f"/tournaments/{tid}/bundle.json"))
            assert bundle["clubs"] == final["clubs"]
            assert {r["player"]["name"]: r["club"] for r in bundle["records"]} == club_of
            report = verify_document(bundle)
            assert report.ok and any(x.startswith("battle: the 3 clubs'") for x in report.checked)
            text = (await _get(srv, f"/tournaments/{tid}/results.csv")).decode()
            table = list(csv.DictReader(io.StringIO(text)))
            by_id = {owls: "Owls", foxes: "Foxes"}
            assert {r["player"]: r["club"] for r in table} == {
                p: by_id[c] for p, c in club_of.items()
            }

            leader = final["rows"][0]["player"]
            await lea.ok(type="disqualify", tournament=tid, player=leader, reason="two accounts")
            amended = json.loads(await _get(srv, f"/tournaments/{tid}/bundle.json"))
            assert amended["amendments"] and amended["clubs"] != bundle["clubs"]
            tampered = copy.deepcopy(amended)
            tampered["clubs"][0]["score"] += 1
            docs = {"bundle": bundle, "amended": amended, "tampered": tampered}
            py = {n: verify_document(d) for n, d in docs.items()}
            js = js_verdicts(require_node(), docs, tmp_path)
            assert py["amended"].ok and not py["tampered"].ok
            for n in docs:
                assert (js[n]["ok"], js[n]["error"]) == (py[n].ok, py[n].error), n
            assert "clubs line 1 is" in (py["tampered"].error or "")

            for body in (json.dumps(bundle), json.dumps(final), json.dumps(record), text):
                assert CODE not in body
