"""Every message and every error code of protocol v1, over a real connection."""

from __future__ import annotations

import asyncio
import json
import time
from datetime import timedelta

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from server.net import session as session_mod
from tests.support.fanout_timer import ManualTimer
from tests.support.harness import T0, Client, create_msg, http_get, running_server


@pytest.fixture
async def srv(sqlite_url):
    async with running_server(sqlite_url) as running:
        yield running


async def joined(srv, name: str, tid: int) -> tuple[Client, dict]:
    c = Client(await connect(srv.ws_url), srv.frames)
    await c.ok(type="register", name=name)
    return c, await c.ok(type="join", tournament=tid)


async def new_tournament(srv, **over) -> int:
    op = await srv.admin(f"op{len(srv.app.competition.catalogue.known())}")
    t = (await op.ok(**create_msg(**over)))["tournament"]
    await op.close()
    return t["id"]


async def test_register_auth_ping_and_re_echo(srv) -> None:
    async with srv.client() as c:
        reg = await c.req(type="register", name="Alice_1", id="abc")
        assert reg["type"] == "registered" and reg["re"] == "abc"
        assert reg["player"]["name"] == "Alice_1" and len(reg["token"]) >= 32
        pong = await c.req(type="ping", id=7)
        assert pong["type"] == "pong" and pong["re"] == 7 and pong["server_time"].endswith("Z")
    async with srv.client() as c:
        authed = await c.ok(type="auth", token=reg["token"])
        assert authed["player"] == {"id": reg["player"]["id"], "name": "Alice_1", "admin": False}
        await c.err("name_taken", type="register", name="alice_1")
        await c.err("unauthorized", type="auth", token="not-a-token")


async def test_bad_requests_change_nothing_and_keep_the_connection(srv) -> None:
    async with srv.client() as c:
        for frame in (
            "not json",
            "[1,2]",
            '{"type": "fly"}',
            '{"type": 3}',
            '"x"',
            '{"type": "register"}',
            '{"type": "register", "name": 5}',
            '{"type": "ping", "extra": 1}',
            "[" * 100000 + "]" * 10,
        ):
            if len(frame) > 60000:
                continue
            reply = await c.send_raw(frame)
            assert reply["type"] == "error" and reply["code"] == "bad_request", (frame, reply)
        reply = await c.send_raw(b"\x00\x01binary")
        assert reply["code"] == "bad_request" and "binary" in reply["message"]
        await c.ws.send(b'{"type": "ping", "id": "\xff"}', text=True)  # text, not UTF-8
        reply = await c.recv()
        assert reply["code"] == "bad_request" and reply["message"] == "not JSON"
        for bad in ("", "a" * 33, "bad name", "J\u043e\u00e3o", "x/y"):
            await c.err("bad_request", type="register", name=bad)
        await c.ok(type="ping")  # still usable
    assert srv.app.competition.catalogue.known() == []


async def test_playing_and_operating_need_auth(srv) -> None:
    async with srv.client() as c:
        for msg in (
            {"type": "join", "tournament": 1},
            {"type": "state", "tournament": 1},
            {"type": "act", "tournament": 1, "seq": 1, "action": {"kind": "resign"}},
            {"type": "hint", "tournament": 1},
            create_msg(),
            {"type": "close_tournament", "tournament": 1},
        ):
            await c.err("unauthorized", **msg)


async def test_watching_is_public_and_shows_nothing_hidden(srv) -> None:
    tid = await new_tournament(srv)
    player, st = await joined(srv, "seen", tid)
    await player.ok(
        type="act", tournament=tid, seq=1, action={"kind": "move", **st["view"]["legal"][0]}
    )
    async with srv.client() as anon:
        items = (await anon.ok(type="tournaments"))["items"]
        assert [t["id"] for t in items] == [tid] and "seed" not in items[0]
        window = await anon.ok(type="subscribe", tournament=tid)
        assert window["total"] == 1 and [r["player"] for r in window["rows"]] == ["seen"]
        assert set(window["rows"][0]) == {
            "rank",
            "player",
            "status",
            "progress",
            "resets",
            "time_ms",
            "score",
            "bot",  # v1.3: rows always carry it
        }
        page = await anon.ok(type="standings_page", tournament=tid, offset=0, limit=5)
        assert page["rows"] == window["rows"] and page["version"] == window["version"]
        await anon.err("not_revealed", type="record", tournament=tid, player="seen")
        await anon.err("unauthorized", type="act", tournament=tid, seq=2, action={"kind": "resign"})
        await anon.ok(type="unsubscribe", tournament=tid)
        await anon.ok(type="ping")
    await player.close()


async def test_forbidden_for_non_admins(srv) -> None:
    tid = await new_tournament(srv)
    c, _ = await joined(srv, "pleb", tid)
    await c.err("forbidden", **create_msg())
    await c.err("forbidden", type="close_tournament", tournament=tid)
    await c.err("forbidden", type="hint", tournament=tid)  # Gaps gives no hints
    await c.close()


async def test_not_found(srv) -> None:
    tid = await new_tournament(srv)
    async with srv.client() as c:
        await c.ok(type="register", name="nf")
        await c.err("not_found", type="join", tournament=999)
        await c.err("not_found", type="state", tournament=tid)  # not joined
        await c.err("not_found", type="act", tournament=tid, seq=1, action={"kind": "resign"})
        await c.err("not_found", type="subscribe", tournament=42)


async def test_act_seq_discipline_and_duplicates(srv) -> None:
    tid = await new_tournament(srv)
    c, st = await joined(srv, "seqy", tid)
    move = {"kind": "move", **st["view"]["legal"][0]}
    err = await c.err("out_of_sync", type="act", tournament=tid, seq=2, action=move)
    assert err["expected"] == 1
    one = await c.ok(type="act", tournament=tid, seq=1, action=move)
    assert one["seq"] == 1 and "duplicate" not in one
    again = await c.ok(type="act", tournament=tid, seq=1, action=move)
    assert again["duplicate"] is True and again["seq"] == 1 and again["view"] == one["view"]
    other = {"kind": "resign"}
    err = await c.err("out_of_sync", type="act", tournament=tid, seq=1, action=other)
    assert err["expected"] == 2
    entry = next(e for e in await srv.app.store.entries(tid) if e.player_name == "seqy")
    assert [a.seq for a in await srv.app.store.actions(entry.id)] == [1]
    await c.close()


async def test_illegal_actions_say_why_and_change_nothing(srv) -> None:
    tid = await new_tournament(srv)
    c, st = await joined(srv, "illy", tid)
    grid = st["view"]["grid"]
    occupied = next((r, k) for r in range(4) for k in range(13) if grid[r][k])
    err = await c.err(
        "illegal_action",
        type="act",
        tournament=tid,
        seq=1,
        action={"kind": "move", "card": "KS", "to": list(occupied)},
    )
    assert err["reason"] == "not_a_gap" and "not a gap" in err["message"]
    err = await c.err(
        "illegal_action", type="act", tournament=tid, seq=1, action={"kind": "redeal"}
    )
    assert err["reason"] == "not_blocked"
    await c.err(
        "bad_request",
        type="act",
        tournament=tid,
        seq=1,
        action={"kind": "move", "card": "ZZ", "to": [0, 0]},
    )
    await c.err(
        "bad_request",
        type="act",
        tournament=tid,
        seq=1,
        action={"kind": "move", "card": "2S", "to": [-1, 99]},
    )
    await c.err("bad_request", type="act", tournament=tid, seq=0, action={"kind": "resign"})
    await c.err("bad_request", type="act", tournament=tid, seq=10**30, action={"kind": "resign"})
    st2 = await c.ok(type="state", tournament=tid)
    assert st2["seq"] == 0 and st2["view"] == st["view"]
    await c.close()


async def test_not_open_before_start_and_closed_after_join_until(srv) -> None:
    later = await new_tournament(srv, starts_at=(T0 + timedelta(minutes=30)).isoformat())
    async with srv.client() as c:
        await c.ok(type="register", name="early")
        await c.err("not_open", type="join", tournament=later)
        cutoff = await new_tournament(srv, join_until=(T0 + timedelta(minutes=5)).isoformat())
        srv.clock.advance(6 * 60)
        await c.err("closed", type="join", tournament=cutoff)
        srv.clock.advance(25 * 60)
        await srv.tick()
        st = await c.ok(type="join", tournament=later)  # opened by the clock
        assert st["status"] == "playing"


async def test_closed_after_close_and_record_then_available(srv) -> None:
    tid = await new_tournament(srv)
    c, _st = await joined(srv, "late", tid)
    await c.err("not_revealed", type="record", tournament=tid, player="late")
    op = await srv.admin("closer")
    await op.ok(type="close_tournament", tournament=tid)
    await op.err("closed", type="close_tournament", tournament=tid)
    await c.err("closed", type="act", tournament=tid, seq=1, action={"kind": "resign"})
    again = await c.ok(type="join", tournament=tid)  # joining again returns the state
    assert again["status"] == "timed_out"
    rec = (await c.ok(type="record", tournament=tid, player="LATE"))["record"]
    assert rec["result"]["status"] == "timed_out"
    await c.err("not_found", type="record", tournament=tid, player="nobody")
    await op.close()
    await c.close()


async def test_internal_error_when_the_store_fails(srv, monkeypatch) -> None:
    tid = await new_tournament(srv)
    c, _st = await joined(srv, "unlucky", tid)

    async def broken(*args, **kwargs):
        raise ConnectionError("database gone")

    monkeypatch.setattr(srv.app.store, "append", broken)
    err = await c.err("internal", type="act", tournament=tid, seq=1, action={"kind": "resign"})
    assert "not acknowledged" in err["message"] and "same seq" in err["message"]
    monkeypatch.undo()
    st2 = await c.ok(type="state", tournament=tid)
    assert st2["seq"] == 0 and st2["status"] == "playing"  # not acknowledged, not applied
    done = await c.ok(type="act", tournament=tid, seq=1, action={"kind": "resign"})
    assert done["status"] == "resigned"
    await c.close()


async def test_an_action_stored_but_not_acknowledged_answers_as_a_duplicate(
    srv, monkeypatch
) -> None:
    """The store commits, then fails to say so (a writer dying after its commit): the
    player resends the same seq and learns the action is there."""
    tid = await new_tournament(srv)
    c, st = await joined(srv, "unsure", tid)
    real_append = srv.app.store.append

    async def commits_then_fails(*args, **kwargs):
        await real_append(*args, **kwargs)
        raise ConnectionError("lost the answer")

    monkeypatch.setattr(srv.app.store, "append", commits_then_fails)
    move = {"kind": "move", **st["view"]["legal"][0]}
    await c.err("internal", type="act", tournament=tid, seq=1, action=move)
    monkeypatch.undo()
    again = await c.ok(type="act", tournament=tid, seq=1, action=move)
    assert again["seq"] == 1 and again.get("duplicate") is True
    nxt = {"kind": "move", **again["view"]["legal"][0]} if again["view"]["legal"] else None
    if nxt is not None:
        assert (await c.ok(type="act", tournament=tid, seq=2, action=nxt))["seq"] == 2
    await c.close()


async def test_rate_limit_then_close_on_sustained_abuse(srv, monkeypatch) -> None:
    monkeypatch.setattr(session_mod, "RATE_BURST", 5.0)
    monkeypatch.setattr(session_mod, "RATE_PER_S", 1.0)
    monkeypatch.setattr(session_mod, "ABUSE_STRIKES", 20)
    async with srv.client() as c:
        codes = []
        for _ in range(8):
            codes.append((await c.req(type="ping")).get("code"))
        assert codes[:5] == [None] * 5 and "rate_limited" in codes
        with pytest.raises(ConnectionClosed) as info:
            for _ in range(40):
                await c.req(type="ping")
        assert info.value.rcvd.code == 1008


async def test_oversized_frame_closes_with_1009(srv) -> None:
    async with srv.client() as c:
        await c.ws.send(json.dumps({"type": "register", "name": "x" * 70000}))
        with pytest.raises(ConnectionClosed) as info:
            await c.recv()
        assert info.value.rcvd.code == 1009


async def test_http_endpoints(srv) -> None:
    code, body = await asyncio.to_thread(http_get, f"{srv.http}/healthz")
    assert code == 200 and body == b"ok\n"
    tid = await new_tournament(srv)
    c, st = await joined(srv, "metric", tid)
    await c.ok(type="act", tournament=tid, seq=1, action={"kind": "move", **st["view"]["legal"][0]})
    await c.err("out_of_sync", type="act", tournament=tid, seq=5, action={"kind": "resign"})
    code, body = await asyncio.to_thread(http_get, f"{srv.http}/metrics")
    text = body.decode()
    assert code == 200 and "samedeal_actions_accepted_total 1" in text
    assert 'samedeal_actions_rejected_total{code="out_of_sync"} 1' in text
    assert "samedeal_connections 1" in text and 'samedeal_games{status="playing"} 1' in text
    assert "samedeal_action_seconds_count 1" in text
    assert "process_cpu_seconds_total" in text and "process_open_fds" in text  # the library's
    assert "python_gc_objects_collected_total" in text
    assert 'samedeal_db_statements_total{kind="read"}' in text  # what this node asks of the db
    code, _ = await asyncio.to_thread(http_get, f"{srv.http}/nope")
    assert code == 404
    code, _ = await asyncio.to_thread(http_get, f"{srv.http}/tournaments/{tid}/bundle.json")
    assert code == 404
    await c.close()


async def test_healthz_503_when_the_database_does_not_answer(srv, monkeypatch) -> None:
    async def down() -> bool:
        return False

    monkeypatch.setattr(srv.app.store, "ping", down)
    code, _ = await asyncio.to_thread(http_get, f"{srv.http}/healthz")
    assert code == 503


async def test_tournament_listing_and_validation(srv) -> None:
    op = await srv.admin("lister")
    await op.err("bad_request", **create_msg(game="chess"))
    await op.err("bad_request", **create_msg(options={"redeals": 9}))
    await op.err("bad_request", **create_msg(ends_at=(T0 - timedelta(hours=1)).isoformat()))
    await op.err("bad_request", **create_msg(ends_at="2026-11-30T19:00:00"))  # naive time
    await op.err("bad_request", **create_msg(time_limit_s=0))
    t = (await op.ok(**create_msg(options=None)))["tournament"]
    # the options as the rules read them, every default named (Gaps' redeal and winnable)
    assert t["options"] == {"redeals": 2, "redeal": "keep_runs", "winnable": False}
    assert t["join_until"] == t["ends_at"]
    items = (await op.ok(type="tournaments"))["items"]
    assert [i["id"] for i in items] == [t["id"]] and items[0]["entrants"] == 0
    assert set(items[0]) >= {
        "id",
        "name",
        "game",
        "options",
        "commitment",
        "starts_at",
        "ends_at",
        "time_limit_s",
        "join_until",
        "status",
        "entrants",
    }
    await op.ok(type="unsubscribe", tournament=t["id"])
    await op.close()


async def test_resume_after_server_restart(sqlite_url) -> None:
    from tests.support.harness import Clock

    clk = Clock()
    async with running_server(sqlite_url, clk) as srv:
        tid = await new_tournament(srv)
        c = Client(await connect(srv.ws_url), srv.frames)
        token = (await c.ok(type="register", name="phoenix"))["token"]
        st = await c.ok(type="join", tournament=tid)
        for _ in range(3):
            clk.advance(2)
            st = await c.ok(
                type="act",
                tournament=tid,
                seq=st["seq"] + 1,
                action={"kind": "move", **st["view"]["legal"][0]},
            )
        before = st
        await c.close()
    async with running_server(sqlite_url, clk) as srv:  # a new process would do the same
        c = Client(await connect(srv.ws_url), srv.frames)
        await c.ok(type="auth", token=token)
        st = await c.ok(type="state", tournament=tid)
        assert st["seq"] == 3 and st["view"] == before["view"]
        assert st["progress"] == before["progress"] and st["started_at"] == before["started_at"]
        again = await c.ok(type="join", tournament=tid)  # never a second attempt
        assert again["seq"] == 3 and again["view"] == before["view"]
        last = before["events"][0]
        dup = await c.ok(
            type="act",
            tournament=tid,
            seq=3,
            action={"kind": "move", "card": last["card"], "to": last["to"]},
        )
        assert dup["duplicate"] is True
        nxt = await c.ok(type="act", tournament=tid, seq=4, action={"kind": "resign"})
        assert nxt["status"] == "resigned" and nxt["seq"] == 4
        await c.close()


async def test_server_down_at_ends_at_closes_on_start(sqlite_url) -> None:
    from tests.support.harness import Clock

    clk = Clock()
    async with running_server(sqlite_url, clk) as srv:
        tid = await new_tournament(srv)
        c, _ = await joined(srv, "sleeper", tid)
        await c.close()
    clk.advance(2 * 3600)
    async with running_server(sqlite_url, clk) as srv:
        t = srv.app.competition.catalogue.get(tid)
        assert t.status == "closed" and t.closed_at is not None
        code, body = await asyncio.to_thread(http_get, f"{srv.http}/tournaments/{tid}/bundle.json")
        assert code == 200
        from server.audit.verify import verify_document

        assert verify_document(json.loads(body)).ok


async def test_standings_pushes_are_coalesced(srv) -> None:
    timer = srv.app.fanout.timer = ManualTimer()  # rounds wait for the test, not the clock
    tid = await new_tournament(srv)
    watcher = await srv.admin("watch2")
    await watcher.ok(type="subscribe", tournament=tid)
    started = time.monotonic()  # before the join: its change pushes at once
    c, st = await joined(srv, "busy", tid)
    changes = 1  # the join
    for _ in range(30):  # 30 changes as fast as the server answers
        if not st["view"]["legal"]:
            break
        changes += 1
        st = await c.ok(
            type="act",
            tournament=tid,
            seq=st["seq"] + 1,
            action={"kind": "move", **st["view"]["legal"][0]},
        )
    elapsed = time.monotonic() - started
    latest = await watcher.ok(type="standings_page", tournament=tid, offset=0, limit=10)

    def pushed() -> list[dict]:
        frames = (json.loads(f) for f in watcher.received)
        return [m for m in frames if m["type"] == "standings" and "re" not in m]

    timer.advance(10.0)  # the spacing after the first round has passed: the trailing push
    while not any(p["version"] >= latest["version"] for p in pushed()):
        await watcher.recv(timeout=30)  # a real condition, with a generous timeout
    pushes = pushed()
    # at most one push per 0.25 s window (plus the trailing one), far fewer than the changes
    assert 1 <= len(pushes) <= elapsed / 0.25 + 2, (len(pushes), elapsed)
    assert len(pushes) < changes / 2, (len(pushes), changes)
    last = pushes[-1]["rows"][0]
    assert last["player"] == "busy"
    await c.close()
    await watcher.close()


async def test_standings_json_pages_the_table_over_http(srv) -> None:
    monotonic = [0.0]  # the page cache's time, driven
    srv.app.response_cache.clock = lambda: monotonic[0]
    tid = await new_tournament(srv)
    for name in ("ann", "bob", "cid"):
        c, _ = await joined(srv, name, tid)
        await c.close()
    url = f"{srv.http}/tournaments/{tid}/standings.json"
    code, body = await asyncio.to_thread(http_get, f"{url}?offset=1&limit=2")
    page = json.loads(body)
    assert code == 200 and page["type"] == "standings" and page["total"] == 3
    assert [r["player"] for r in page["rows"]] == ["bob", "cid"]  # ties listed by name
    assert page["rows"][0]["rank"] == 1  # the three share rank 1
    code, body = await asyncio.to_thread(http_get, url)  # defaults: offset 0, limit 100
    assert code == 200 and len(json.loads(body)["rows"]) == 3
    for bad in ("?limit=0", "?limit=101", "?offset=-1", "?offset=x"):
        code, _ = await asyncio.to_thread(http_get, url + bad)
        assert code == 400, bad
    code, _ = await asyncio.to_thread(http_get, f"{srv.http}/tournaments/99/standings.json")
    assert code == 404
    late, _ = await joined(srv, "dan", tid)  # a new entrant: the cached page lags 1 s
    code, body = await asyncio.to_thread(http_get, f"{url}?offset=1&limit=2")
    assert json.loads(body)["total"] == 3  # cached at 0.0 until 1.0 (the driven clock)
    monotonic[0] = 0.999
    code, body = await asyncio.to_thread(http_get, f"{url}?offset=1&limit=2")
    assert json.loads(body)["total"] == 3
    monotonic[0] = 1.0  # the cache's second later
    code, body = await asyncio.to_thread(http_get, f"{url}?offset=1&limit=2")
    assert json.loads(body)["total"] == 4
    await late.close()
