"""A connection whose backend was terminated between two operations (a PostgreSQL restart,
pg_terminate_backend) is a fault of the database, one line, and is dropped, never reused.

PostgreSQL's FATAL for a terminated backend can reach asyncpg while the connection is
idle, before the socket's end: asyncpg's protocol, expecting nothing, is then stuck, and
the next operation on it fails with InternalClientError "cannot switch to state N;
another operation (2) is in progress" (the chaos bench saw it on the leadership's, the
listener's and par's connections, each a traceback). Here it is made deterministic: the
connections go through a proxy that passes PostgreSQL's bytes on but holds the socket's
end, so the FATAL arrives and the end does not."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import urlsplit

import asyncpg
import pytest
from sqlalchemy import text

from server.ops import faults
from server.store import db, pg_coordination
from tests.conftest import PG_ADMIN_DSN

TERMINATED_S = 10.0  # generous: the FATAL arrives within milliseconds
TERMINATE = b"X\x00\x00\x00\x04"  # the protocol's Terminate message


class HeldEnd:
    """Forwards to PostgreSQL; when PostgreSQL closes a connection, its bytes (the FATAL)
    are passed on but the client's socket stays open (`ended` is set)."""

    def __init__(self) -> None:
        self.ended = asyncio.Event()
        self.port = 0
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._writers: list[asyncio.StreamWriter] = []

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._accepted, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    def dsn(self, database: str) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    async def _accepted(self, cr: asyncio.StreamReader, cw: asyncio.StreamWriter) -> None:
        ur, uw = await asyncio.open_connection("127.0.0.1", 5432)
        self._writers += [cw, uw]

        bye = False  # the client said Terminate itself: its end is passed on

        async def down() -> None:
            while data := await ur.read(65536):
                cw.write(data)
            if bye:
                cw.close()
            else:
                self.ended.set()  # the client's side is left open

        async def up() -> None:
            nonlocal bye
            with contextlib.suppress(OSError):
                while data := await cr.read(65536):
                    bye = bye or data.endswith(TERMINATE)
                    uw.write(data)

        for coro in (down(), up()):
            task = asyncio.create_task(coro)
            self._tasks.add(task)

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        for w in self._writers:
            w.transport.abort()


@pytest.fixture
async def held(pg_url: str) -> AsyncIterator[tuple[HeldEnd, str]]:
    proxy = HeldEnd()
    await proxy.start()
    try:
        yield proxy, urlsplit(pg_url).path.lstrip("/")
    finally:
        await proxy.close()


async def terminate(proxy: HeldEnd, *pids: int) -> None:
    """End those backends; return once PostgreSQL's FATAL has reached the client."""
    proxy.ended.clear()
    admin = await asyncpg.connect(PG_ADMIN_DSN, timeout=5)
    try:
        for pid in pids:
            assert await admin.fetchval("SELECT pg_terminate_backend($1)", pid)
    finally:
        await admin.close()
    await asyncio.wait_for(proxy.ended.wait(), TERMINATED_S)
    await asyncio.sleep(0.2)  # the client's loop reads the bytes already in its socket


def fault_lines(caplog: pytest.LogCaptureFixture, where: str) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.getMessage().startswith(f"fault kind=database where={where} ")
    ]


def tracebacks(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.exc_info]


async def test_the_error_of_a_terminated_connection_is_a_database_fault(
    held: tuple[HeldEnd, str],
) -> None:
    proxy, database = held
    conn = await asyncpg.connect(proxy.dsn(database), timeout=5)
    try:
        await terminate(proxy, await conn.fetchval("SELECT pg_backend_pid()"))
        with pytest.raises(asyncpg.InternalClientError, match=r"another operation \(2\)") as e:
            await conn.fetchval("SELECT 1")
        assert faults.kind_of(e.value) == "database"
    finally:
        conn.terminate()
    # an operation started while another runs on a live connection (a reuse) is a bug
    reuse = asyncpg.InternalClientError(
        "cannot switch to state 12; another operation (15) is in progress"
    )
    assert faults.kind_of(reuse) is None


async def test_the_leadership_drops_a_terminated_connection_with_a_fault_line(
    held: tuple[HeldEnd, str], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    faults.FAULTS._last.clear()
    proxy, database = held
    leadership = pg_coordination.Leadership(proxy.dsn(database))
    try:
        assert await leadership.leading()
        first = leadership._conn
        await terminate(proxy, await first.fetchval("SELECT pg_backend_pid()"))
        assert not await leadership.leading()  # no exception: the lock is gone with it
        assert first.is_closed() and leadership._conn is None  # dropped, not reused
        assert len(fault_lines(caplog, "leadership")) == 1, caplog.text
        assert await leadership.leading()  # a new connection takes the lock again
        assert leadership._conn is not first
    finally:
        await leadership.close()
    assert not tracebacks(caplog), caplog.text


class Resyncs:
    def __init__(self) -> None:
        self.n = 0

    async def notice(self, notice: object) -> None:
        pass

    async def resync(self) -> None:
        self.n += 1


async def test_the_listener_reconnects_after_a_terminated_connection_with_a_fault_line(
    held: tuple[HeldEnd, str], caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    caplog.set_level(logging.WARNING)
    faults.FAULTS._last.clear()
    monkeypatch.setattr(
        pg_coordination, "KEEPALIVE_S", 0.2
    )  # its keepalive meets the dead protocol
    proxy, database = held
    handler = Resyncs()
    listener = pg_coordination.Listener(proxy.dsn(database), handler)
    listener.start()
    try:
        await listener.connected()
        first = listener._conn
        admin = await asyncpg.connect(PG_ADMIN_DSN, timeout=5)
        try:
            pid = await admin.fetchval(
                "SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND datname = $2",
                pg_coordination.LISTENER_NAME,
                database,
            )
        finally:
            await admin.close()
        await terminate(proxy, pid)
        async with asyncio.timeout(TERMINATED_S):
            while listener.connects < 2:
                await asyncio.sleep(0.05)
        assert first.is_closed() and listener._conn is not first
        assert handler.n == 2  # resynced after the loss
        assert len(fault_lines(caplog, "listener")) == 1, caplog.text
    finally:
        await listener.close()
    assert not tracebacks(caplog), caplog.text


async def test_the_pool_invalidates_a_terminated_connection(
    held: tuple[HeldEnd, str], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    proxy, database = held
    engine = db.make_engine(proxy.dsn(database).replace("postgresql:", "postgresql+asyncpg:"))
    try:
        with pytest.raises(Exception) as e:
            async with engine.connect() as c:
                pid = (await c.execute(text("SELECT pg_backend_pid()"))).scalar_one()
                await terminate(proxy, pid)
                await c.execute(text("SELECT 1"))
        assert faults.kind_of(e.value) == "database"
        assert getattr(e.value, "connection_invalidated", False)  # never back in the pool
        async with engine.connect() as c:  # a new connection
            assert (await c.execute(text("SELECT pg_backend_pid()"))).scalar_one() != pid
    finally:
        await engine.dispose()
    assert not tracebacks(caplog), caplog.text
