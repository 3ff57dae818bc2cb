"""Ratings over a real connection and HTTP (PROTOCOL v1.3): bots registered and authed as
bots, `leaderboard` and `player` (public), /leaderboard/G.json, /players/NAME.json and
/tournaments/ID/results.csv (after the reveal only, a real CSV), on SQLite and
PostgreSQL."""

from __future__ import annotations

import asyncio
import csv
import io
import json

import pytest
from websockets.asyncio.client import connect

from server.competition import ratings
from tests.support.harness import Client, create_msg, http_get, running_server


@pytest.fixture
async def srv(db_url):
    async with running_server(db_url) as running:
        yield running


async def get(srv, path: str) -> tuple[int, bytes]:
    return await asyncio.to_thread(http_get, f"{srv.http}{path}")


async def test_a_close_rates_and_everything_reads_back_anonymously(srv) -> None:
    op = await srv.admin("op")
    tid = (await op.ok(**create_msg(time_limit_s=None)))["tournament"]["id"]
    clients = {}
    for name, bot in (("ann", False), ("bob", False), ("cid", False), ("robo", True)):
        c = Client(await connect(srv.ws_url), srv.frames)
        reg = await c.ok(type="register", name=name, **({"bot": True} if bot else {}))
        assert reg["player"].get("bot", False) is bot
        authed = await c.ok(type="auth", token=reg["token"])
        assert authed["player"].get("bot", False) is bot
        clients[name] = c
    for moves, name in ((3, "ann"), (0, "bob"), (1, "cid"), (5, "robo")):
        c = clients[name]
        state = await c.ok(type="join", tournament=tid)
        seq = 1
        for _ in range(moves):
            if not state["view"]["legal"]:
                break
            state = await c.ok(
                type="act",
                tournament=tid,
                seq=seq,
                action={"kind": "move", **state["view"]["legal"][0]},
            )
            seq += 1
        await c.ok(type="act", tournament=tid, seq=seq, action={"kind": "resign"})

    code, body = await get(srv, f"/tournaments/{tid}/results.csv")
    assert code == 404 and b"not closed" in body  # nothing before the reveal
    await op.ok(type="close_tournament", tournament=tid)  # the close starts the rating
    await ratings.settle()  # (a task in the server, which runs in this process)

    async with srv.client() as anon:  # no account needed
        board = await anon.ok(type="leaderboard", game="gaps")
        assert board["total"] == 3 and "robo" not in [r["player"] for r in board["rows"]]
        assert [r["rank"] for r in board["rows"]] == [1, 2, 3]
        for r in board["rows"]:
            assert set(r) == {
                "rank",
                "player",
                "rating",
                "mu",
                "sigma",
                "tournaments",
                "provisional",
            }
            assert r["provisional"] and r["tournaments"] == 1
        page = await anon.ok(type="leaderboard", game="gaps", offset=2, limit=1)
        assert page["rows"] == board["rows"][2:] and page["total"] == 3
        await anon.err("not_found", type="leaderboard", game="chess")
        await anon.err("bad_request", type="leaderboard", game="gaps", limit=101)
        await anon.err("bad_request", type="leaderboard", game="gaps", offset=-1)

        best = board["rows"][0]["player"]
        me = await anon.ok(type="player", name=best)
        assert me["player"]["name"] == best and me["player"]["bot"] is False
        assert me["ratings"]["gaps"]["rank"] == 1
        (recent,) = me["recent"]
        assert recent["tournament"] == tid and recent["entrants"] == 4
        assert recent["percentile"] == round(100 * (4 - recent["rank"] + 1) / 4, 1)
        assert me["streak"]["gaps"] == (1 if 2 * recent["rank"] <= 4 else 0)
        robo = await anon.ok(type="player", name="ROBO")
        assert robo["player"]["bot"] is True and robo["ratings"] == {}
        await anon.err("not_found", type="player", name="nobody")
        await anon.err("bad_request", type="player")

    code, body = await get(srv, "/leaderboard/gaps.json?offset=0&limit=2")
    assert code == 200 and json.loads(body)["rows"] == board["rows"][:2]
    assert (await get(srv, "/leaderboard/gaps.json?limit=0"))[0] == 400
    assert (await get(srv, "/leaderboard/chess.json"))[0] == 404
    code, body = await get(srv, f"/players/{best}.json")
    assert code == 200 and json.loads(body)["ratings"] == me["ratings"]
    assert (await get(srv, "/players/nobody.json"))[0] == 404

    code, body = await get(srv, f"/tournaments/{tid}/results.csv")
    assert code == 200
    rows = list(csv.DictReader(io.StringIO(body.decode("utf-8"), newline="")))
    assert [r["player"] for r in rows][:1] and len(rows) == 4
    assert set(rows[0]) == {
        "rank",
        "player",
        "bot",
        "status",
        "progress",
        "resets",
        "time_ms",
        "score",
        "disqualified",  # fair play (issue 27)
    }
    assert {r["player"]: r["bot"] for r in rows}["robo"] == "true"
    ranks = [int(r["rank"]) for r in rows]
    assert ranks == sorted(ranks) and ranks[0] == 1
    assert all(r["status"] == "resigned" for r in rows)
    assert (await get(srv, "/tournaments/999/results.csv"))[0] == 404
    for c in (op, *clients.values()):
        await c.close()


async def test_a_name_in_another_alphabet_registers_and_is_found_by_its_forms(srv) -> None:
    """v1.4 names over the wire: "João" registers (NFC), its other spellings are taken,
    a look-alike of another script is refused, and /players/NAME.json finds it however
    it is percent-encoded."""
    c = Client(await connect(srv.ws_url), srv.frames)
    reg = await c.ok(type="register", name="Joa\u0303o")
    assert reg["player"]["name"] == "Jo\u00e3o"
    taken = await c.err("name_taken", type="register", name="JOÃO")
    assert "JOÃO" in taken["message"]
    mixed = await c.err("bad_request", type="register", name="J\u043e\u00e3o")
    assert "Cyrillic and Latin" in mixed["message"]
    me = await c.ok(type="player", name="joão")
    assert me["player"]["name"] == "Jo\u00e3o"
    for path in ("Jo%C3%A3o", "JO%C3%83O", "Joa%CC%83o"):
        code, body = await get(srv, f"/players/{path}.json")
        assert code == 200 and json.loads(body)["player"]["name"] == "Jo\u00e3o", path
    assert (await get(srv, "/players/Jo%E3o.json"))[0] == 400  # Latin-1, not UTF-8
    code, page = await get(srv, "/players/Jo%C3%A3o")
    assert code == 200 and b"<html" in page
