"""client_cli/bots.py: bots resend an unacknowledged action with the same seq and action;
against a real server they play Klondike too, register as bots, and no frame they
receive carries the seed or a hidden card."""

from __future__ import annotations

import json
from typing import Any

import pytest

from client_cli import bots
from client_cli.bots import play_bot, run_bots
from client_cli.connection import ServerError
from server.games.klondike import KlondikeOptions
from tests.support.harness import create_msg, running_server
from tests.support.klondike_play import hidden_codes


class _FlakyConnection:
    def __init__(self, failures: int, code: str = "internal") -> None:
        self.failures, self.code = failures, code
        self.sent: list[dict[str, Any]] = []

    async def call(self, kind: str, **fields: Any) -> dict[str, Any]:
        self.sent.append({"type": kind, **fields})
        if len(self.sent) <= self.failures:
            raise ServerError({"type": "error", "code": self.code, "message": "x"})
        return {"type": "state", "seq": fields["seq"], "duplicate": True}


async def test_internal_is_retried_with_the_same_seq_and_action(monkeypatch) -> None:
    monkeypatch.setattr(bots.asyncio, "sleep", _no_sleep)
    conn = _FlakyConnection(failures=2)
    move = {"kind": "move", "card": "2H", "to": [0, 0]}
    state = await bots.act(conn, 3, 7, move)  # type: ignore[arg-type]
    assert state["seq"] == 7
    assert conn.sent == [{"type": "act", "tournament": 3, "seq": 7, "action": move}] * 3


async def test_other_errors_are_not_retried(monkeypatch) -> None:
    monkeypatch.setattr(bots.asyncio, "sleep", _no_sleep)
    conn = _FlakyConnection(failures=1, code="illegal_action")
    with pytest.raises(ServerError):
        await bots.act(conn, 3, 7, {"kind": "redeal"})  # type: ignore[arg-type]
    assert len(conn.sent) == 1


async def _no_sleep(_seconds: float) -> None:
    return None


async def test_bots_play_klondike_too(sqlite_url) -> None:
    async with running_server(sqlite_url) as srv:
        op = await srv.admin()
        t = await op.ok(**create_msg(game="klondike", options={"draw": 1, "passes": 2}))
        results = await run_bots(srv.ws_url, t["tournament"]["id"], 2, "greedy")
        assert all(r.status in ("won", "resigned") for r in results), results
        assert all(r.actions > 5 for r in results)
        await op.close()


async def test_bot_frames_never_carry_the_seed_or_a_hidden_card(sqlite_url) -> None:

    async with running_server(sqlite_url) as srv:
        op = await srv.admin()
        gaps = (await op.ok(**create_msg()))["tournament"]["id"]
        klon = (await op.ok(**create_msg(game="klondike", options={"draw": 3})))["tournament"]
        frames: dict[str, list[str]] = {"g": [], "k": []}
        await play_bot(srv.ws_url, gaps, "scan_g", "greedy", frames=frames["g"])
        await play_bot(srv.ws_url, klon["id"], "scan_k", "greedy", frames=frames["k"])
        closed = await op.ok(type="close_tournament", tournament=gaps)
        await op.ok(type="close_tournament", tournament=klon["id"])
        seeds = [closed["tournament"]["seed"], await srv.app.store.secret_seed(klon["id"])]
        assert all(seed not in f for f in frames["g"] + frames["k"] for seed in seeds)
        rec = await srv.app.competition.exports.record(klon["id"], "scan_k")
        actions = [a["action"] for a in rec["actions"]]
        opts = KlondikeOptions(draw=3)
        states = [json.loads(f) for f in frames["k"]]
        states = [m for m in states if m.get("type") == "state"]
        assert len(states) > 5
        for m in states:
            hidden = hidden_codes(bytes.fromhex(seeds[1]), opts, 0, actions[: m["seq"]])
            assert not [c for c in hidden if f'"{c}"' in json.dumps(m)], m["seq"]
        await op.close()


async def test_samedeal_bots_register_as_bots(sqlite_url) -> None:
    async with running_server(sqlite_url) as srv:
        op = await srv.admin("op")
        tid = (await op.ok(**create_msg(time_limit_s=None)))["tournament"]["id"]
        await op.close()
        result = await play_bot(srv.ws_url, tid, "botty", strategy="random", seed=1)
        assert result.status in ("won", "lost", "resigned")
        async with srv.client() as c:
            assert (await c.ok(type="player", name="botty"))["player"]["bot"] is True
