"""Group commit for SQLite: one thread owns the write connection.

Every write of the hot path (an action with its entry's new summary, a new player, a
new entry) is queued here. While one batch commits in the thread, new writes queue and
form the next batch; a whole batch costs one transaction, one fsync, and one hop back
to the event loop, where each caller's future is settled. A caller returns only after
its own write is committed. Keeping every hot-path write on one connection also means
they never wait on each other for SQLite's write lock.
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import sqlite3
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from server.store.writer import MAX_BATCH, DuplicateAction, Summary, TournamentClosed

PRAGMAS = ("journal_mode=WAL", "busy_timeout=30000", "foreign_keys=ON", "synchronous=FULL")


class Conflict(Exception):
    """An insert broke a unique constraint (nothing was stored)."""


@dataclass(eq=False, slots=True)
class _Append:
    tournament_id: int
    entry_id: int
    seq: int
    at_ms: int
    action_json: str
    summary: Summary
    done: asyncio.Future[Any] = field(repr=False)

    def action_row(self) -> tuple[object, ...]:
        return (self.entry_id, self.seq, self.at_ms, self.action_json)

    def entry_row(self) -> tuple[object, ...]:
        s = self.summary
        return (s.status, s.progress, s.resets, s.score, s.time_ms, s.seq, self.entry_id)


@dataclass(eq=False, slots=True)
class _Insert:
    sql: str
    params: tuple[object, ...]
    done: asyncio.Future[Any] = field(repr=False)


_Job = _Append | _Insert
_INSERT_ACTION = "INSERT INTO actions (entry_id, seq, at_ms, action) VALUES (?, ?, ?, ?)"
_UPDATE_ENTRY = (
    "UPDATE entries SET status = ?, progress = ?, resets = ?, score = ?, time_ms = ?, seq = ? "
    "WHERE id = ?"
)


class SqliteWriter:
    """Queues writes and commits them in batches on its own thread and connection.

    The thread takes the next batch itself as soon as a commit ends, so commits follow
    each other back to back however busy the event loop is; only the settling of the
    callers' futures goes through the loop."""

    def __init__(self, path: str, on_batch: Callable[[int], None] | None = None) -> None:
        self._path = path
        self.on_batch = on_batch
        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._outstanding = 0  # submitted, not yet settled
        self._idle = asyncio.Event()
        self._idle.set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self.batches = 0
        self.appended = 0
        self.largest_batch = 0

    async def append(
        self,
        tournament_id: int,
        entry_id: int,
        seq: int,
        at_ms: int,
        action_json: str,
        summary: Summary,
    ) -> None:
        """Return once the action and the entry's new summary are committed; raise
        DuplicateAction or TournamentClosed (nothing stored) otherwise."""
        done = self._future()
        self._submit(_Append(tournament_id, entry_id, seq, at_ms, action_json, summary, done))
        await done

    async def insert(self, sql: str, params: tuple[object, ...]) -> int:
        """Run one INSERT in the next commit and return its row id; Conflict when a
        unique constraint refuses it."""
        done = self._future()
        self._submit(_Insert(sql, params, done))
        return int(await done)

    async def close(self) -> None:
        """Commit what is queued, then stop the thread."""
        while self._outstanding:
            await self._idle.wait()
        if self._thread is not None:
            self._jobs.put(None)
            await asyncio.to_thread(self._thread.join)
            self._thread = None

    # -- event loop side -------------------------------------------------
    def _future(self) -> asyncio.Future[Any]:
        if self._loop is None:
            self._loop = asyncio.get_running_loop()
        return self._loop.create_future()

    def _submit(self, job: _Job) -> None:
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._serve, name="samedeal-sqlite-writer", daemon=True
            )
            self._thread.start()
        self._outstanding += 1
        self._idle.clear()
        self._jobs.put(job)

    def _settle(self, batch: list[_Job], outcomes: list[object]) -> None:
        for job, outcome in zip(batch, outcomes, strict=True):
            if job.done.done():  # its caller went away
                continue
            if isinstance(outcome, BaseException):
                job.done.set_exception(outcome)
            else:
                job.done.set_result(outcome)
        self.batches += 1
        self.appended += sum(
            1 for j, o in zip(batch, outcomes, strict=True) if isinstance(j, _Append) and o is None
        )
        self.largest_batch = max(self.largest_batch, len(batch))
        if self.on_batch is not None:
            self.on_batch(len(batch))
        self._outstanding -= len(batch)
        if not self._outstanding:
            self._idle.set()

    # -- writer thread ---------------------------------------------------
    def _next_batch(self) -> list[_Job] | None:
        """Block for the first job, then take what else is queued (None: stop)."""
        first = self._jobs.get()
        if first is None:
            return None
        batch = [first]
        while len(batch) < MAX_BATCH:
            try:
                job = self._jobs.get_nowait()
            except queue.Empty:
                break
            if job is None:  # stop after this batch
                self._jobs.put(None)
                break
            batch.append(job)
        return batch

    def _serve(self) -> None:
        conn: sqlite3.Connection | None = None
        assert self._loop is not None
        while (batch := self._next_batch()) is not None:
            try:
                if conn is None:
                    conn = _connect(self._path)
                outcomes = _commit(conn, batch)
            except Exception as exc:  # the database is unusable: every caller hears of it
                outcomes = [exc] * len(batch)
                if conn is not None:
                    with contextlib.suppress(Exception):
                        conn.close()
                    conn = None
            self._loop.call_soon_threadsafe(self._settle, batch, outcomes)
        if conn is not None:
            conn.close()


def _connect(path: str) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    for pragma in PRAGMAS:
        conn.execute(f"PRAGMA {pragma}")
    return conn


def _commit(conn: sqlite3.Connection, batch: list[_Job]) -> list[object]:
    """Write the batch in one transaction; the outcome of each job (a row id, None for an
    append, or the exception that refused it alone)."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        outcomes = _write(conn, batch)
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    return outcomes


def _write(conn: sqlite3.Connection, batch: list[_Job]) -> list[object]:
    outcomes: list[object] = [None] * len(batch)
    appends: list[tuple[int, _Append]] = []
    for i, job in enumerate(batch):
        if isinstance(job, _Insert):
            try:
                outcomes[i] = conn.execute(job.sql, job.params).lastrowid
            except sqlite3.IntegrityError as exc:
                outcomes[i] = Conflict(str(exc))
        else:
            appends.append((i, job))
    if not appends:
        return outcomes
    # Inside the write transaction: no tournament of the batch may have been closed.
    ids = sorted({job.tournament_id for _, job in appends})
    marks = ",".join("?" * len(ids))
    closed = {
        row[0]
        for row in conn.execute(
            f"SELECT id FROM tournaments WHERE status = 'closed' AND id IN ({marks})", ids
        )
    }
    kept = []
    for i, job in appends:
        if job.tournament_id in closed:
            outcomes[i] = TournamentClosed(f"tournament {job.tournament_id} is closed")
        else:
            kept.append((i, job))
    kept = _insert_actions(conn, kept, outcomes)
    conn.executemany(_UPDATE_ENTRY, [job.entry_row() for _, job in kept])
    return outcomes


def _insert_actions(
    conn: sqlite3.Connection, appends: list[tuple[int, _Append]], outcomes: list[object]
) -> list[tuple[int, _Append]]:
    """Insert the actions at once; if one is a duplicate (entry, seq), one by one so that
    it alone fails. Returns the appends that were stored."""
    conn.execute("SAVEPOINT actions")
    try:
        conn.executemany(_INSERT_ACTION, [job.action_row() for _, job in appends])
        conn.execute("RELEASE actions")
        return appends
    except sqlite3.IntegrityError:
        conn.execute("ROLLBACK TO actions")
        conn.execute("RELEASE actions")
    stored = []
    for i, job in appends:
        try:
            conn.execute(_INSERT_ACTION, job.action_row())
            stored.append((i, job))
        except sqlite3.IntegrityError:
            outcomes[i] = DuplicateAction(f"entry {job.entry_id} already has seq {job.seq}")
    return stored
