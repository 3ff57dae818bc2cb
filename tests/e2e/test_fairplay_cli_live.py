"""A disqualification made on the operator's command line while a server runs on the same
SQLite file reaches that server promptly (docs/COMPETITION.md "Fair play"): real
processes (the server, `samedeal-server disqualify` as a subprocess) and a watcher over
WebSocket who gets fresh standings, before the close and after it (an amendment: the
bundle served over HTTP is built again with it)."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.harness import Client, http_get, open_now, ws_client
from tests.support.processes import ServerProcess, cli

PUSH_WITHIN_S = 60.0  # generous on a loaded machine; it is about a second (the 0.5 s tick)


@pytest.fixture
def site(tmp_path: Path) -> Iterator[tuple[str, ServerProcess]]:
    db = f"sqlite+aiosqlite:///{tmp_path / 'live.db'}"
    server = ServerProcess(db, tmp_path / "server.log", ("--no-demo",))
    try:
        yield db, server
    finally:
        server.stop()


async def signed_in(c: Client, name: str) -> str:
    reg = await c.ok(type="register", name=name)
    await c.ok(type="auth", token=reg["token"])
    return str(reg["token"])


async def play(c: Client, tid: int, moves: int) -> None:
    state = await c.ok(type="join", tournament=tid)
    for seq in range(1, moves + 1):
        if not state["view"]["legal"]:
            break
        action = {"kind": "move", **state["view"]["legal"][0]}
        state = await c.ok(type="act", tournament=tid, seq=seq, action=action)


async def pushed(watcher: Client, reason: str, since: float) -> tuple[dict[str, Any], float]:
    """The first standings push with an entry disqualified for `reason`, and when it came
    (seconds after `since`, a time.monotonic())."""
    start = time.monotonic()
    while True:
        left = PUSH_WITHIN_S - (time.monotonic() - start)
        assert left > 0, f"no fresh standings within {PUSH_WITHIN_S} s"
        push = await watcher.push("standings", timeout=left)
        if any(r.get("disqualified") == reason for r in push["rows"]):
            return push, time.monotonic() - since


async def disqualify(db: str, tid: int, player: str, reason: str) -> str:
    done = await asyncio.to_thread(cli, db, "disqualify", str(tid), player, "--reason", reason)
    assert done.returncode == 0, done.stderr
    return done.stdout


async def test_a_command_line_disqualification_reaches_the_running_server(
    site: tuple[str, ServerProcess],
) -> None:
    db, server = site
    async with (
        ws_client(server.port) as op,
        ws_client(server.port) as ann,
        ws_client(server.port) as bob,
        ws_client(server.port) as watcher,
    ):
        token = await signed_in(op, "op")
        assert cli(db, "admin", "grant", "op").returncode == 0
        await op.ok(type="auth", token=token)  # signed in again, as the admin it now is
        tid = (await op.ok(**open_now()))["tournament"]["id"]
        for c, name, moves in ((ann, "ann", 6), (bob, "bob", 3)):
            await signed_in(c, name)
            await play(c, tid, moves)
        first = await watcher.ok(type="subscribe", tournament=tid)
        assert {r["player"] for r in first["rows"]} == {"ann", "bob"}
        assert all(r["rank"] is not None for r in first["rows"])

        since = time.monotonic()
        waiting = asyncio.create_task(pushed(watcher, "shared line", since))  # reads meanwhile
        said = await disqualify(db, tid, "ann", "shared line")
        ran = time.monotonic() - since
        assert "ann disqualified" in said
        push, took = await waiting
        rows = {r["player"]: r for r in push["rows"]}
        assert rows["ann"]["rank"] is None and rows["bob"]["rank"] == 1
        print(f"before the close: pushed {took:.2f} s after the command began (it ran {ran:.2f} s)")
        page = await watcher.ok(type="standings_page", tournament=tid)  # what anyone reads
        assert [r["player"] for r in page["rows"]][-1] == "ann"

        await op.ok(type="close_tournament", tournament=tid)
        url = f"http://127.0.0.1:{server.port}/tournaments/{tid}/bundle.json"
        code, body = await asyncio.to_thread(http_get, url)
        assert code == 200 and json.loads(body)["amendments"] == []  # built and kept

        since = time.monotonic()
        waiting = asyncio.create_task(pushed(watcher, "solver", since))  # reads meanwhile
        said = await disqualify(db, tid, "bob", "solver")
        ran = time.monotonic() - since
        assert "amendment" in said
        push, took = await waiting
        assert push["final"] and [r["rank"] for r in push["rows"]] == [None, None]
        print(f"after the close: pushed {took:.2f} s after the command began (it ran {ran:.2f} s)")
        code, body = await asyncio.to_thread(http_get, url)
        bundle = json.loads(body)
        assert code == 200 and [a["player"] for a in bundle["amendments"]] == ["bob"]
