"""The SQLite writer process: it can die and be replaced, and it stops with the store."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from server.domain.model import canonical_json
from server.store.repository import Store
from server.store.sqlite_writer import SqliteWriter
from server.store.writer import WriterFailed
from tests.support.store_records import NOW, new_tournament, playing


async def test_a_killed_writer_process_is_replaced(sqlite_url: str) -> None:
    store = await Store.open(sqlite_url)
    try:
        writer = store.writer
        assert isinstance(writer, SqliteWriter)
        p = await store.create_player("kim", "hk", NOW)
        t = await store.create_tournament(new_tournament())
        e = await store.create_entry(t.id, p, NOW, NOW, playing())
        await store.append(t.id, e.id, 1, 1, canonical_json({"n": 1}), playing(1, 1))
        assert writer._proc is not None
        os.kill(writer._proc.pid, signal.SIGKILL)
        await writer._proc.wait()
        await store.append(t.id, e.id, 2, 2, canonical_json({"n": 2}), playing(2, 2))
        assert [a.seq for a in await store.actions(e.id)] == [1, 2]
        assert (await store.entry(t.id, p.id)).seq == 2
    finally:
        await store.close()


async def test_close_stops_the_writer_process(sqlite_url: str) -> None:
    store = await Store.open(sqlite_url)
    await store.create_player("lee", "hl", NOW)
    writer = store.writer
    assert isinstance(writer, SqliteWriter) and writer._proc is not None
    proc = writer._proc
    await store.close()
    assert proc.returncode == 0


async def test_a_write_to_an_unusable_database_fails_and_changes_nothing(tmp_path) -> None:
    writer = SqliteWriter(str(tmp_path / "no" / "such" / "dir.db"))
    try:
        with pytest.raises(WriterFailed, match="OperationalError"):
            await writer.new_player("x", "x", "h", NOW)
    finally:
        await writer.close()


ORPHAN_SCRIPT = """
import asyncio, sys, time
from datetime import UTC, datetime
from server.store.repository import Store

async def main():
    store = await Store.open(sys.argv[1])
    await store.create_player("orphan", "ho", datetime.now(UTC))
    print(store.writer._proc.pid, flush=True)
    time.sleep(60)

asyncio.run(main())
"""


def test_the_writer_process_exits_when_the_server_is_killed(sqlite_url: str) -> None:
    server = subprocess.Popen(
        [sys.executable, "-c", ORPHAN_SCRIPT, sqlite_url], stdout=subprocess.PIPE, text=True
    )
    assert server.stdout is not None
    writer_pid = int(server.stdout.readline())
    assert _alive(writer_pid)
    server.kill()
    server.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and _alive(writer_pid):
        time.sleep(0.05)
    assert not _alive(writer_pid)


def _alive(pid: int) -> bool:
    """True while the process exists and is not a zombie."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"
