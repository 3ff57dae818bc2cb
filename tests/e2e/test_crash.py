"""No acknowledged move is ever lost: SIGKILL the server mid-play, restart, check everything.

Quick by default (10 kills); SAMEDEAL_SOAK=1 runs 50 kills with more players.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import urllib.request
from pathlib import Path
from typing import Any

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from server.audit.verify import verify_document
from tests.support.processes import Killable, cli, free_port

SOAK = os.environ.get("SAMEDEAL_SOAK") == "1"
KILLS = 50 if SOAK else 10
BUNDLE_WAIT_S = 180  # a bound, not a wait: the reply comes once the bundle is built
PLAYERS = 12 if SOAK else 6


class Player:
    """Plays Gaps; remembers every action the server acknowledged."""

    def __init__(self, name: str, token: str, tid: int, ws_url: str) -> None:
        self.name, self.token, self.tid, self.ws_url = name, token, tid, ws_url
        self.acked: dict[int, dict[str, Any]] = {}
        self.pending: tuple[int, dict[str, Any]] | None = None  # sent, no reply seen yet
        self.last_state: dict[str, Any] | None = None
        self.resumes = 0
        self.rnd = random.Random(name)

    async def session(self, stop: asyncio.Event) -> None:
        """Play until the connection dies or the game ends; then return."""
        async with connect(self.ws_url, open_timeout=5) as ws:
            await ws.send(json.dumps({"type": "auth", "token": self.token, "id": 0}))
            assert json.loads(await ws.recv())["type"] == "authed"
            await ws.send(json.dumps({"type": "join", "tournament": self.tid, "id": 0}))
            state = json.loads(await ws.recv())
            self.check_resume(state)
            while state["status"] == "playing" and not stop.is_set():
                view = state["view"]
                action = (
                    {"kind": "move", **self.rnd.choice(view["legal"])}
                    if view["legal"]
                    else {"kind": "redeal"}
                )
                seq = state["seq"] + 1
                self.pending = (seq, action)
                await ws.send(
                    json.dumps(
                        {
                            "type": "act",
                            "tournament": self.tid,
                            "seq": seq,
                            "action": action,
                            "id": seq,
                        }
                    )
                )
                reply = json.loads(await ws.recv())
                assert reply["type"] == "state", reply
                self.acked[seq] = action
                self.pending = None
                state = self.last_state = reply
                await asyncio.sleep(self.rnd.random() * 0.01)

    def check_resume(self, state: dict[str, Any]) -> None:
        """After a restart the game is where this client left it, or one step on: the
        action it sent last, whose reply the kill took, was stored. The join's state
        acknowledges that action, so it counts as acknowledged from then on (a kill
        during the next act then leaves the game one step past it, not two)."""
        if self.last_state is not None:
            self.resumes += 1
            acked = max(self.acked, default=0)
            assert state["seq"] in (acked, acked + 1), (self.name, state["seq"], acked)
            if state["seq"] == acked:
                assert state["view"] == self.last_state["view"]
            else:
                assert self.pending is not None and self.pending[0] == acked + 1, self.name
                self.acked[acked + 1] = self.pending[1]
        self.pending = None
        self.last_state = state


async def play_through_kills(server: Killable, players: list[Player]) -> None:
    stop = asyncio.Event()

    async def keep_playing(p: Player) -> None:
        while not stop.is_set():
            try:
                await p.session(stop)
                if p.last_state and p.last_state["status"] != "playing":
                    return
            except (TimeoutError, ConnectionClosed, OSError, InvalidHandshake):
                await asyncio.sleep(0.05)

    tasks = [asyncio.get_running_loop().create_task(keep_playing(p)) for p in players]
    rnd = random.Random(99)
    for _ in range(KILLS):
        await asyncio.sleep(0.2 + rnd.random() * 0.6)
        await asyncio.to_thread(server.kill)
        await asyncio.sleep(rnd.random() * 0.2)
        await asyncio.to_thread(server.start)
    # play on until the run holds enough acknowledged actions to mean something (a loaded
    # machine starts the server slowly, so the kills alone may leave few), within a bound
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 120
    while loop.time() < deadline and not all(t.done() for t in tasks):
        if sum(len(p.acked) for p in players) > 10 * len(players):
            break
        await asyncio.sleep(0.1)
    await asyncio.sleep(1.0)
    stop.set()
    await asyncio.wait_for(asyncio.gather(*tasks), 60)


async def crash_run(url: str, tmp_path: Path) -> None:
    port = free_port()
    server = Killable(url, port, tmp_path / "server.log")
    made = cli(url, "tournament", "create", "--json", "--name", "Crash", "--hours", "2")
    assert made.returncode == 0, made.stderr
    tid = json.loads(made.stdout)["id"]
    server.start()
    ws_url = f"ws://127.0.0.1:{port}/ws"
    try:
        players = []
        for i in range(PLAYERS):
            async with connect(ws_url) as ws:
                await ws.send(json.dumps({"type": "register", "name": f"crash{i}"}))
                token = json.loads(await ws.recv())["token"]
            players.append(Player(f"crash{i}", token, tid, ws_url))
        await play_through_kills(server, players)
        assert server.starts == KILLS + 1
        assert sum(len(p.acked) for p in players) > 10 * PLAYERS
        assert any(p.resumes for p in players)
        # close as an operator, then check every acknowledged action is in the record
        async with connect(ws_url) as ws:
            await ws.send(json.dumps({"type": "register", "name": "crashop"}))
            op_token = json.loads(await ws.recv())["token"]
        assert cli(url, "admin", "grant", "crashop").returncode == 0
        async with connect(ws_url) as ws:
            await ws.send(json.dumps({"type": "auth", "token": op_token}))
            await ws.recv()
            await ws.send(json.dumps({"type": "close_tournament", "tournament": tid}))
            assert json.loads(await ws.recv())["type"] == "tournament"
        # the bundle is built by a worker at a lower priority than the server: on a
        # loaded machine it waits for the cores, so the bound is generous
        body = await asyncio.to_thread(
            lambda: urllib.request.urlopen(
                f"http://127.0.0.1:{port}/tournaments/{tid}/bundle.json", timeout=BUNDLE_WAIT_S
            ).read()
        )
        bundle = json.loads(body)
        report = verify_document(bundle)
        assert report.ok, report.error
        logged = {
            r["player"]["name"]: {a["seq"]: a["action"] for a in r["actions"]}
            for r in bundle["records"]
        }
        for p in players:
            for seq, action in p.acked.items():
                assert logged[p.name].get(seq) == action, (p.name, seq)
        print(
            f"\nfigures: {KILLS} SIGKILLs survived, {sum(len(p.acked) for p in players)} "
            f"acknowledged actions all in the log, {sum(p.resumes for p in players)} resumes"
        )
    finally:
        server.stop()


async def test_sigkill_never_loses_an_acknowledged_action_sqlite(tmp_path: Path) -> None:
    await crash_run(f"sqlite+aiosqlite:///{tmp_path / 'crash.db'}", tmp_path)


async def test_sigkill_never_loses_an_acknowledged_action_postgresql(pg_url, tmp_path) -> None:
    await crash_run(pg_url, tmp_path)
