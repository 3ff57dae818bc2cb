"""PostgreSQL as the coordination engine of several nodes: notices (LISTEN/NOTIFY) that
tell every node what another changed, and the advisory locks behind the lifecycle's one
leader and other once-only work.

Notices are sent inside the transaction that makes the change (so they arrive only if it
committed, in commit order) on one channel, as text lines:

    a TID EID SEQ STATUS PROGRESS RESETS SCORE TIME_MS    an entry's new figures
    j TID EID                                           a new entry
    t TID                                               a tournament created/opened/closed
    d DID DID ...                                       devices revoked (v1.4 accounts)
    r TID                                               a player renamed (a deleted account)

NOTIFY is not replayed: a listener that loses its connection reconnects and asks its
handler to resync from the database.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Iterable
from typing import Any, Protocol

import asyncpg

from server.domain.model import (
    DevicesNotice,
    EntryNotice,
    Figures,
    JoinNotice,
    Notice,
    RenamedNotice,
    Status,
    TournamentNotice,
)
from server.ops import faults

log = logging.getLogger("samedeal.cluster")
CHANNEL = "samedeal"
MAX_PAYLOAD = 7900  # PostgreSQL's limit is 8000 bytes
NOTIFY_SQL = "SELECT pg_notify('samedeal', $1)"
LEADER_KEY = 0x5A3D_EA1_0001  # the lifecycle clock's advisory lock
KEEPALIVE_S = 5.0
LISTENER_NAME = "samedeal-listener"  # pg_stat_activity.application_name of a listener
LEADER_NAME = "samedeal-leader"  # ... of a connection trying for (or holding) the lead


# -- encoding ----------------------------------------------------------------------
def entry_line(tournament_id: int, entry_id: int, seq: int, f: Figures) -> str:
    """An entry's new figures after `seq` actions (read back by `parse`)."""
    return (
        f"a {tournament_id} {entry_id} {seq} {f.status} {f.progress} {f.resets} "
        f"{f.score} {f.time_ms}"
    )


def join_line(tournament_id: int, entry_id: int) -> str:
    return f"j {tournament_id} {entry_id}"


def tournament_line(tournament_id: int) -> str:
    return f"t {tournament_id}"


def renamed_line(tournament_id: int) -> str:
    return f"r {tournament_id}"


def devices_lines(device_ids: Iterable[int]) -> list[str]:
    """Revoked devices' ids, at most 400 a line (a line fits one payload)."""
    ids = [str(i) for i in device_ids]
    return ["d " + " ".join(ids[k : k + 400]) for k in range(0, len(ids), 400)]


def payloads(lines: Iterable[str]) -> list[str]:
    """The lines packed into as few notifications as fit PostgreSQL's payload limit."""
    out: list[str] = []
    chunk: list[str] = []
    size = 0
    for line in lines:
        if chunk and size + len(line) + 1 > MAX_PAYLOAD:
            out.append("\n".join(chunk))
            chunk, size = [], 0
        chunk.append(line)
        size += len(line) + 1
    if chunk:
        out.append("\n".join(chunk))
    return out


def parse(payload: str) -> list[Notice]:
    """The notices of one notification; a line that does not parse is skipped (logged)."""
    notices: list[Notice] = []
    for line in payload.split("\n"):
        try:
            notices.append(_notice(line.split(" ")))
        except (ValueError, IndexError):
            log.warning("unreadable notice %r", line[:200])
    return notices


def _notice(f: list[str]) -> Notice:
    if f[0] == "a" and len(f) == 9:
        figures = Figures(
            status=Status(f[4]),
            progress=int(f[5]),
            resets=int(f[6]),
            score=int(f[7]),
            time_ms=int(f[8]),
        )
        return EntryNotice(int(f[1]), int(f[2]), int(f[3]), figures)
    if f[0] == "j" and len(f) == 3:
        return JoinNotice(int(f[1]), int(f[2]))
    if f[0] == "t" and len(f) == 2:
        return TournamentNotice(int(f[1]))
    if f[0] == "r" and len(f) == 2:
        return RenamedNotice(int(f[1]))
    if f[0] == "d" and len(f) >= 2:
        return DevicesNotice(tuple(int(x) for x in f[1:]))
    raise ValueError(f[0])


# -- listening ---------------------------------------------------------------------
class NoticeHandler(Protocol):
    """Who a node's listener reports to (the competition's peers part)."""

    async def notice(self, notice: Notice) -> None:
        """Another node (or this one) changed something."""

    async def resync(self) -> None:
        """Notices may have been missed: read again what matters from the database."""


class Listener:
    """LISTEN on a connection of its own, reconnecting with back-off; notices are handled
    one at a time, in the order they were committed."""

    def __init__(self, dsn: str, handler: NoticeHandler) -> None:
        self.dsn = dsn
        self.handler = handler
        self.received = 0  # notices handled (for benches and tests)
        self.connects = 0
        self._queue: asyncio.Queue[str | None] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None
        self._conn: Any = None
        self._listening = False  # connected and resynced (the back-off is reset on a loss)

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        await self._drop()

    async def connected(self, timeout: float = 10.0) -> None:
        """Wait until the listener is connected (tests)."""
        async with asyncio.timeout(timeout):
            while self._conn is None or self._conn.is_closed():
                await asyncio.sleep(0.01)

    async def _run(self) -> None:
        delay = 0.1
        while True:
            self._listening = False
            try:
                await self._listen()  # returns only by raising: the connection was lost
            except Exception as exc:  # the connection is dropped, never reused
                if faults.report(exc, "listener"):  # one line per interval, counted
                    pass
                elif isinstance(exc, (OSError, asyncpg.PostgresError)):  # not the database's
                    log.warning("notice listener lost its connection (%s); reconnecting", exc)
                else:  # a traceback means a bug
                    log.exception("notice listener failed; reconnecting")
            await self._drop(broken=True)
            if self._listening:  # a loss after listening: the back-off starts again
                delay = 0.1
            await asyncio.sleep(delay)
            delay = min(delay * 2, 5.0)

    async def _listen(self) -> None:
        self._queue = asyncio.Queue()  # notices of a lost connection came before the resync
        conn = self._conn = await asyncpg.connect(
            self.dsn, timeout=5, server_settings={"application_name": LISTENER_NAME}
        )
        lost = asyncio.Event()
        conn.add_termination_listener(lambda _c: lost.set())
        await conn.add_listener(CHANNEL, self._received)
        self.connects += 1
        await self.handler.resync()  # whatever happened while not listening
        self._listening = True
        pump = asyncio.get_running_loop().create_task(self._pump())
        try:
            while not lost.is_set():
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(lost.wait(), KEEPALIVE_S)
                if not lost.is_set():
                    await conn.fetchval("SELECT 1", timeout=KEEPALIVE_S)
            raise ConnectionError("connection terminated")
        finally:
            pump.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await pump

    def _received(self, _conn: object, _pid: int, _channel: str, payload: str) -> None:
        self._queue.put_nowait(payload)

    async def _pump(self) -> None:
        while True:
            payload = await self._queue.get()
            if payload is None:
                return
            for notice in parse(payload):
                self.received += 1
                try:
                    await self.handler.notice(notice)
                except Exception as exc:
                    if not faults.report(exc, "notice"):
                        log.exception("handling %s failed", notice)

    async def _drop(self, broken: bool = False) -> None:
        """Close the connection; a broken one (it failed) is cut, not closed politely: its
        protocol may be stuck (a terminated backend's message met between operations)."""
        conn, self._conn = self._conn, None
        if conn is None or conn.is_closed():
            return
        if broken:
            conn.terminate()
            return
        with contextlib.suppress(Exception):
            await asyncio.wait_for(conn.close(), 2)


# -- locks -------------------------------------------------------------------------
class Leadership:
    """The lifecycle's leader: whoever holds a session advisory lock on a connection of
    its own. Losing the connection loses the lock (PostgreSQL releases it)."""

    def __init__(self, dsn: str, key: int = LEADER_KEY) -> None:
        self.dsn = dsn
        self.key = key
        self._conn: Any = None
        self._held = False

    async def leading(self) -> bool:
        """Whether this node leads now (trying to take the lock when it does not)."""
        try:
            if self._conn is None or self._conn.is_closed():
                self._held = False
                self._conn = await asyncpg.connect(
                    self.dsn, timeout=5, server_settings={"application_name": LEADER_NAME}
                )
            if self._held:
                await self._conn.fetchval("SELECT 1", timeout=2)  # still connected
            else:
                self._held = bool(  # a timeout: a silent connection must not stall the tick
                    await self._conn.fetchval(
                        "SELECT pg_try_advisory_lock($1)", self.key, timeout=2
                    )
                )
        except Exception as exc:  # the lock is lost with the connection, never reused
            self._cut()
            expected = isinstance(exc, (OSError, asyncpg.PostgresError))  # e.g. no database
            if not faults.report(exc, "leadership") and not expected:
                raise  # a bug: the tick logs its traceback
        return self._held

    def _cut(self) -> None:
        conn, self._conn, self._held = self._conn, None, False
        if conn is not None and not conn.is_closed():
            conn.terminate()

    async def close(self) -> None:
        conn, self._conn, self._held = self._conn, None, False
        if conn is not None and not conn.is_closed():
            with contextlib.suppress(Exception):
                await asyncio.wait_for(conn.close(), 2)


LOCKS_NAME = "samedeal-locks"  # ... of the one connection holding a node's other locks
LOCK_POLL_S = (0.02, 0.5)  # first and longest pause between tries for a taken lock
# A node's connections to PostgreSQL, all told: the engine's pool (db.py POOL_SIZE +
# POOL_OVERFLOW) and these three of its own: the listener, the leadership, the locks.
OWN_CONNECTIONS = 3


class AdvisoryLocks:
    """Every advisory lock of a node but the leader's (closes, ratings, par, once-only
    work), held on ONE connection of its own: a node's connections stay bounded however
    many locks it waits for. A key is taken locally first (one holder per key in this
    process: session locks are re-entrant on PostgreSQL), then tried on the shared
    connection (`pg_try_advisory_lock`, never a blocking call that would hold the
    connection) until it is free. Losing the connection releases every lock it held."""

    def __init__(self, dsn: str) -> None:
        self.dsn = dsn
        self._conn: Any = None
        self._generation = 0  # connections opened: a lock is released on its own only
        self._io = asyncio.Lock()  # one statement at a time on the connection
        self._local: dict[int, asyncio.Lock] = {}

    @contextlib.asynccontextmanager
    async def hold(self, key: int, wait: bool = True) -> AsyncIterator[bool]:
        """Hold lock `key` for the block, which gets True; with wait=False the block gets
        False at once (nothing held) when another holder has it."""
        local = self._local.setdefault(key, asyncio.Lock())
        if not wait and local.locked():
            yield False
            return
        async with local:
            pause = LOCK_POLL_S[0]
            while (generation := await self._try(key)) is None and wait:
                await asyncio.sleep(pause)
                pause = min(pause * 2, LOCK_POLL_S[1])
            if generation is None:
                yield False
                return
            try:
                yield True
            finally:
                await self._release(key, generation)

    async def _try(self, key: int) -> int | None:
        """The connection's generation when it took `key`; None when `key` is taken."""
        async with self._io:
            try:
                if self._conn is None or self._conn.is_closed():
                    self._conn = await asyncpg.connect(
                        self.dsn, timeout=5, server_settings={"application_name": LOCKS_NAME}
                    )
                    self._generation += 1
                got = await self._conn.fetchval("SELECT pg_try_advisory_lock($1)", key, timeout=5)
            except BaseException:
                await self._drop()
                raise
            return self._generation if got else None

    async def _release(self, key: int, generation: int) -> None:
        async with self._io:
            if generation != self._generation or self._conn is None or self._conn.is_closed():
                return  # that connection is gone, and the lock with it
            try:
                await self._conn.fetchval("SELECT pg_advisory_unlock($1)", key, timeout=5)
            except Exception:  # a broken connection (faults.py says which kind of fault)
                await self._drop()  # ends the session: its locks are released

    async def _drop(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None and not conn.is_closed():
            conn.terminate()

    async def close(self) -> None:
        async with self._io:
            conn, self._conn = self._conn, None
            if conn is not None and not conn.is_closed():
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(conn.close(), 2)
