"""Clients keep receipts (the STATE's seq and log_hash) and hold the published record and
bundle against them: `samedeal record` / `bundle` say on stderr whether the acknowledged
log is there, unchanged, and exit 1 when it is not."""

from __future__ import annotations

import asyncio
import json
import os
import time
from pathlib import Path
from typing import Any

from sqlalchemy import text

from client_cli import config
from client_cli.bots import play_bot, run_bots
from client_cli.connection import Connection
from server.audit.receipts import check_receipt
from tests.support.harness import Clock, Running, create_msg, running_server
from tests.support.processes import Killable, cli, free_port, samedeal


async def play_moves(
    conn: Connection,
    tid: int,
    n: int,
    clock: Clock | None = None,
    state: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Join (unless `state` is given) and play `n` Gaps actions; the last STATE."""
    state = state or await conn.call("join", tournament=tid)
    for _ in range(n):
        assert state["status"] == "playing", state
        legal = state["view"]["legal"]
        action = {"kind": "move", **legal[0]} if legal else {"kind": "redeal"}
        if clock is not None:
            clock.advance(1.0)
        state = await conn.call("act", tournament=tid, seq=state["seq"] + 1, action=action)
    return state


async def register(env: dict[str, str], name: str) -> str:
    """`samedeal register NAME` (the token saved as the user's); the token."""
    code, _, err = await samedeal(env, "register", name)
    assert code == 0, err
    saved = config.token_for(env["SAMEDEAL_SERVER"])
    assert saved is not None and saved[0] == name
    return saved[1]


async def alice_plays(
    srv: Running, tid: int, moves: int, clock: Clock | None = None
) -> dict[str, Any]:
    """alice (the saved player) plays over the wire keeping receipts; her last STATE."""
    env = {**os.environ, "SAMEDEAL_SERVER": srv.ws_url}
    token = await register(env, "alice")
    book = config.ReceiptBook()
    conn = Connection(srv.ws_url, token=token)
    conn.receipts = book
    async with conn:
        state = await play_moves(conn, tid, moves, clock)
    book.flush(final=True)
    return state


def the_receipt_of(state: dict[str, Any], server: str, player: str) -> config.Receipt:
    saved = config.receipt_for(server, player, state["tournament"])
    assert saved is not None, "no receipt saved"
    assert (saved.seq, saved.log_hash) == (state["seq"], state["log_hash"])
    return saved


async def test_bots_save_the_receipt_of_their_last_state(sqlite_url) -> None:
    async with running_server(sqlite_url) as srv:
        op = await srv.admin()
        tid = (await op.ok(**create_msg()))["tournament"]["id"]
        frames: list[str] = []
        book = config.ReceiptBook()
        began = time.monotonic()
        await play_bot(srv.ws_url, tid, "keeper", frames=frames, receipts=book)
        took = time.monotonic() - began
        states = [m for m in map(json.loads, frames) if m.get("type") == "state"]
        assert len(states) > 10 and all(len(m["log_hash"]) == 64 for m in states)
        keeper = the_receipt_of(states[-1], srv.ws_url, "keeper")
        assert book.writes <= took + 2  # at most one write a second, plus the last
        await run_bots(srv.ws_url, tid, 3, prefix="swarm", receipts=book)
        swarm = [r for r in config.receipts_in(srv.ws_url, tid) if r.player != "keeper"]
        assert sorted(r.player for r in swarm) == ["swarm-0", "swarm-1", "swarm-2"]
        await op.ok(type="close_tournament", tournament=tid)
        for r in [keeper, *swarm]:
            rec = await srv.app.competition.exports.record(tid, r.player)
            assert (len(rec["actions"]), rec["log_hash"]) == (r.seq, r.log_hash), r.player
            assert check_receipt(rec, r.seq, r.log_hash) is None
        await op.close()


async def test_a_receipt_taken_over_the_wire_matches_the_record(sqlite_url, tmp_path) -> None:
    async with running_server(sqlite_url) as srv:
        env = {**os.environ, "SAMEDEAL_SERVER": srv.ws_url}
        op = await srv.admin()
        tid = (await op.ok(**create_msg()))["tournament"]["id"]
        state = await alice_plays(srv, tid, 8)
        receipt = the_receipt_of(state, srv.ws_url, "alice")
        await play_bot(srv.ws_url, tid, "bob", max_actions=5)  # keeps no receipt
        await op.ok(type="close_tournament", tournament=tid)

        code, out, err = await samedeal(env, "record", str(tid), "alice")
        assert code == 0, err
        assert json.loads(out)["player"]["name"] == "alice"  # stdout stays the record
        assert err.strip() == "receipt: your log up to seq 8 is in the record, unchanged"
        code, out, err = await samedeal(env, "record", str(tid), "bob")
        assert code == 0 and err == "" and json.loads(out)["player"]["name"] == "bob"
        # a game of alice's played where no receipt was kept: said, not a difference
        other = (await op.ok(**create_msg(name="Other")))["tournament"]["id"]
        saved = config.token_for(srv.ws_url)
        assert saved is not None
        async with srv.client() as c:
            await c.ok(type="auth", token=saved[1])
            await c.ok(type="join", tournament=other)
        await op.ok(type="close_tournament", tournament=other)
        code, _, err = await samedeal(env, "record", str(other), "alice")
        assert code == 0 and err == f"receipt: none kept for your log in tournament {other}\n"
        code, _, err = await samedeal(env, "bundle", str(other))
        assert code == 0 and err == f"receipt: none kept for your log in tournament {other}\n"

        bundle_file = tmp_path / "bundle.json"
        code, out, err = await samedeal(env, "bundle", str(tid), "-o", str(bundle_file))
        assert code == 0, err
        assert out.strip() == f"written: {bundle_file}"
        assert err.strip() == "receipt: your log up to seq 8 is in the bundle, unchanged"
        code, out, _ = await samedeal(
            env,
            "verify",
            str(bundle_file),
            "--receipt",
            f"{receipt.seq}:{receipt.log_hash}",
            "--player",
            "alice",
        )
        assert code == 0, out
        await op.close()


async def alter(srv: Running, tid: int, player: str, seq: int, sql_set: str) -> None:
    """Change one stored action of `player` behind the server's back (`sql_set` is the SET
    clause, over the columns of `actions`)."""
    async with srv.app.store.engine.begin() as db:
        row = (
            await db.execute(
                text(
                    "SELECT a.id, a.action FROM actions a JOIN entries e ON a.entry_id = e.id "
                    "JOIN players p ON e.player_id = p.id "
                    "WHERE p.name = :p AND e.tournament_id = :t AND a.seq = :s"
                ),
                {"p": player, "t": tid, "s": seq},
            )
        ).one()
        action = json.loads(row.action)
        if action["kind"] == "move":  # the same card, put elsewhere
            r, c = action["to"]
            changed = {**action, "to": [r, (c + 1) % 13]}
        else:
            changed = {"kind": "resign"}
        done = await db.execute(
            text(f"UPDATE actions SET {sql_set} WHERE id = :id"),
            {"id": row.id, "action": json.dumps(changed, sort_keys=True, separators=(",", ":"))},
        )
        assert done.rowcount == 1


async def test_an_action_changed_after_its_acknowledgement_is_reported(
    sqlite_url, tmp_path: Path
) -> None:
    async with running_server(sqlite_url) as srv:
        env = {**os.environ, "SAMEDEAL_SERVER": srv.ws_url}
        op = await srv.admin()
        tid = (await op.ok(**create_msg()))["tournament"]["id"]
        state = await alice_plays(srv, tid, 8)
        receipt = the_receipt_of(state, srv.ws_url, "alice")
        await alter(srv, tid, "alice", 3, "action = :action")
        await op.ok(type="close_tournament", tournament=tid)

        rec_file = tmp_path / "alice.json"
        code, out, err = await samedeal(env, "record", str(tid), "alice", "-o", str(rec_file))
        assert code == 1
        assert out.strip() == f"written: {rec_file}"  # the record is still written
        assert len(err.strip().splitlines()) == 1
        assert err.startswith("receipt: DIFFERS: your log acknowledged at seq 8"), err
        assert f"8:{receipt.log_hash}" in err and "changed" in err
        code, out, err = await samedeal(env, "record", str(tid), "alice")
        assert code == 1 and json.loads(out)["actions"][2]["seq"] == 3  # stdout: the JSON
        assert err.startswith("receipt: DIFFERS:")

        bundle_file = tmp_path / "bundle.json"
        code, out, err = await samedeal(env, "bundle", str(tid), "-o", str(bundle_file))
        assert code == 1 and bundle_file.exists()
        assert err.startswith("receipt: DIFFERS: your log acknowledged at seq 8"), err
        assert "is not in the bundle unchanged" in err

        code, out, _ = await samedeal(
            env, "verify", str(rec_file), "--receipt", f"8:{receipt.log_hash}"
        )
        assert code == 1 and "FAIL receipt:" in out, out
        await op.close()


async def test_a_retimed_action_passes_every_check_but_the_receipt(
    sqlite_url, tmp_path: Path
) -> None:
    """Moving an action in time replays the same game: only the receipt can tell."""
    async with running_server(sqlite_url) as srv:
        env = {**os.environ, "SAMEDEAL_SERVER": srv.ws_url}
        op = await srv.admin()
        tid = (await op.ok(**create_msg()))["tournament"]["id"]
        state = await alice_plays(srv, tid, 6, clock=srv.clock)  # one action a second
        receipt = the_receipt_of(state, srv.ws_url, "alice")
        await alter(srv, tid, "alice", 3, "at_ms = at_ms - 500")
        await op.ok(type="close_tournament", tournament=tid)

        rec_file = tmp_path / "alice.json"
        code, _, err = await samedeal(env, "record", str(tid), "alice", "-o", str(rec_file))
        assert code == 1 and err.startswith("receipt: DIFFERS:"), err
        code, out, _ = await samedeal(env, "verify", str(rec_file))
        assert code == 0 and "verified" in out, out  # the replay cannot see it
        code, out, _ = await samedeal(
            env, "verify", str(rec_file), "--receipt", f"6:{receipt.log_hash}"
        )
        assert code == 1 and "FAIL receipt:" in out, out
        await op.close()


async def test_receipts_survive_a_reconnect_and_a_server_restart(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'receipts.db'}"
    made = cli(url, "tournament", "create", "--json", "--name", "Receipts", "--hours", "2")
    assert made.returncode == 0, made.stderr
    tid = json.loads(made.stdout)["id"]
    port = free_port()
    server = Killable(url, port, tmp_path / "server.log")
    await asyncio.to_thread(server.start)
    ws_url = f"ws://127.0.0.1:{port}/ws"
    env = {**os.environ, "SAMEDEAL_SERVER": ws_url}
    try:
        token = await register(env, "alice")
        book = config.ReceiptBook()
        conn = Connection(ws_url, token=token)
        conn.receipts = book
        async with conn:
            before = await play_moves(conn, tid, 5)
            book.flush()
            first = the_receipt_of(before, ws_url, "alice")
            await asyncio.to_thread(server.kill)
            await asyncio.to_thread(server.start)
            again = await conn.call("state", tournament=tid)  # reconnects, re-authenticates
            assert conn.reconnects == 1
            assert (again["seq"], again["log_hash"]) == (first.seq, first.log_hash)
            after = await play_moves(conn, tid, 5, state=again)
        book.flush(final=True)
        last = the_receipt_of(after, ws_url, "alice")  # read back from the file
        assert last.seq == 10

        async with Connection(ws_url) as opc:
            op_token = (await opc.call("register", name="op"))["token"]
        assert cli(url, "admin", "grant", "op").returncode == 0
        async with Connection(ws_url, token=op_token) as opc:
            await opc.call("close_tournament", tournament=tid)

        rec_file = tmp_path / "alice.json"
        code, _, err = await samedeal(env, "record", str(tid), "alice", "-o", str(rec_file))
        assert code == 0 and err.strip() == (
            "receipt: your log up to seq 10 is in the record, unchanged"
        ), err
        code, _, err = await samedeal(env, "bundle", str(tid), "-o", str(tmp_path / "b.json"))
        assert code == 0 and "seq 10 is in the bundle, unchanged" in err, err
        # the receipt taken before the restart holds too
        code, out, _ = await samedeal(
            env, "verify", str(rec_file), "--receipt", f"{first.seq}:{first.log_hash}"
        )
        assert code == 0, out
    finally:
        await asyncio.to_thread(server.stop)
