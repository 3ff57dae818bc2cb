"""The real program: `python -m server` in its own process, its CLI, and its shutdown."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from server.store.repository import Store
from tests.support.factories import new_tournament
from tests.support.harness import Client
from tests.support.processes import ServerProcess, cli


@pytest.fixture
def db(tmp_path: Path) -> str:
    return f"sqlite+aiosqlite:///{tmp_path / 'p.db'}"


async def test_demo_tournament_play_and_graceful_sigterm(db: str, tmp_path: Path) -> None:
    server = ServerProcess(db, tmp_path / "server.log")
    try:
        async with connect(f"ws://127.0.0.1:{server.port}/ws") as ws:
            c = Client(ws, [])
            await c.ok(type="register", name="newcomer")
            items = (await c.ok(type="tournaments"))["items"]
            assert len(items) == 1 and items[0]["name"] == "Demo Gaps"
            assert items[0]["status"] == "open" and items[0]["game"] == "gaps"
            st = await c.ok(type="join", tournament=items[0]["id"])
            st = await c.ok(
                type="act",
                tournament=items[0]["id"],
                seq=1,
                action={"kind": "move", **st["view"]["legal"][0]},
            )
            assert st["seq"] == 1
            await asyncio.to_thread(server.stop)
            with pytest.raises(ConnectionClosed) as info:
                await c.recv(timeout=10)
            assert info.value.rcvd is not None and info.value.rcvd.code == 1001
        assert server.proc.returncode == 0
        assert "stopped" in (tmp_path / "server.log").read_text()
    finally:
        if server.proc.poll() is None:
            server.proc.kill()


def test_operator_command_line(db: str, tmp_path: Path) -> None:
    assert cli(db, "migrate").returncode == 0
    made = cli(
        db,
        "tournament",
        "create",
        "--json",
        "--name",
        "Cli Cup",
        "--hours",
        "2",
        "--options",
        '{"redeals": 1}',
        "--time-limit-s",
        "600",
    )
    assert made.returncode == 0, made.stderr
    t = json.loads(made.stdout)
    assert t["name"] == "Cli Cup" and "seed" not in t
    assert t["options"] == {"redeals": 1, "redeal": "keep_runs", "winnable": False}  # defaults
    listed = [
        json.loads(line) for line in cli(db, "tournament", "list", "--json").stdout.splitlines()
    ]
    assert [x["id"] for x in listed] == [t["id"]]
    closed = json.loads(cli(db, "tournament", "close", "--json", str(t["id"])).stdout)
    assert closed["status"] == "closed" and len(closed["seed"]) == 64
    again = cli(db, "tournament", "close", "--json", str(t["id"]))
    assert again.returncode == 1 and "closed" in again.stderr
    missing = cli(db, "admin", "grant", "nobody")
    assert missing.returncode == 1 and "no player" in missing.stderr
    bad = cli(db, "tournament", "create", "--json", "--name", "x", "--options", '{"redeals": 7}')
    assert bad.returncode == 1 and "bad_request" in bad.stderr


async def test_admin_grant_over_the_command_line(db: str, tmp_path: Path) -> None:
    server = ServerProcess(db, tmp_path / "s.log")
    try:
        async with connect(f"ws://127.0.0.1:{server.port}/ws") as ws:
            c = Client(ws, [])
            token = (await c.ok(type="register", name="boss"))["token"]
            granted = await asyncio.to_thread(cli, db, "admin", "grant", "boss")
            assert granted.returncode == 0, granted.stderr
            authed = await c.ok(type="auth", token=token)
            assert authed["player"]["admin"] is True
    finally:
        server.stop()


async def test_command_line_operations_reach_a_running_server(db: str, tmp_path: Path) -> None:
    server = ServerProcess(db, tmp_path / "live.log")
    try:
        async with connect(f"ws://127.0.0.1:{server.port}/ws") as ws:
            c = Client(ws, [])
            await c.ok(type="register", name="live")
            made = await asyncio.to_thread(
                cli, db, "tournament", "create", "--json", "--name", "Late", "--hours", "1"
            )
            tid = json.loads(made.stdout)["id"]
            deadline = time.monotonic() + 30  # the server's clock (every 0.5 s) picks it up
            while time.monotonic() < deadline:
                items = (await c.ok(type="tournaments"))["items"]
                if any(t["id"] == tid for t in items):
                    break
                await asyncio.sleep(0.1)
            st = await c.ok(type="join", tournament=tid)
            assert st["status"] == "playing"
            closed = await asyncio.to_thread(cli, db, "tournament", "close", "--json", str(tid))
            assert closed.returncode == 0
            reply = None
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                reply = await c.req(type="act", tournament=tid, seq=1, action={"kind": "resign"})
                if reply["type"] == "error":
                    break
                await asyncio.sleep(0.1)
            assert reply is not None and reply["code"] == "closed", reply
            st = await c.ok(type="state", tournament=tid)
            assert st["status"] == "timed_out"
            rec = await c.ok(type="record", tournament=tid, player="live")
            assert rec["record"]["result"]["status"] == "timed_out"
    finally:
        server.stop()


def test_an_operator_mistake_gets_one_line_and_exit_2(db: str) -> None:
    """The real program's status and streams; every mistake's line: tests/cli/test_operator.py."""
    done = cli(db, "tournament", "create", "--json", "--name", "Oops", "--options", "{redeals: 2}")
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "--options is not JSON" in lines[0]
    assert "Traceback" not in done.stderr and done.stdout == ""


def test_migrate_takes_the_database_url_after_the_subcommand(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'after.db'}"
    done = subprocess.run(
        [sys.executable, "-m", "server", "migrate", "--database-url", url],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0 and "database at head" in done.stdout
    assert (tmp_path / "after.db").exists()


def test_listing_runs_no_lifecycle_clock(db: str) -> None:
    """A tournament past its end is closed by a server's clock, never by `list`."""
    assert cli(db, "migrate").returncode == 0

    async def past_its_end() -> None:
        store = await Store.open(db)
        try:
            long_ago = datetime(2020, 1, 1, tzinfo=UTC)
            await store.create_tournament(
                new_tournament(
                    starts_at=long_ago,
                    ends_at=long_ago + timedelta(hours=1),
                    join_until=long_ago + timedelta(hours=1),
                    created_at=long_ago,
                )
            )
        finally:
            await store.close()

    asyncio.run(past_its_end())
    listed = [
        json.loads(line) for line in cli(db, "tournament", "list", "--json").stdout.splitlines()
    ]
    assert listed[0]["status"] == "open" and "seed" not in listed[0]
