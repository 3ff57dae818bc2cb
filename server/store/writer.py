"""Group commit: what both writers promise (Summary, DuplicateAction, TournamentClosed,
MAX_BATCH), and the writer for PostgreSQL (SQLite's is sqlite_writer.py): concurrent
action appends share one transaction (one fsync).

Each `append` call returns only once its own row is committed. While one batch
commits, new appends queue up and form the next batch, so under load a commit
carries many actions; alone, an append commits at once.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import bindparam, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from server.domain.model import DuplicateAction, Summary, TournamentClosed
from server.store.models import Action, Entry, Tournament

MAX_BATCH = 512


@dataclass
class _Pending:
    tournament_id: int
    entry_id: int
    seq: int
    at_ms: int
    action_json: str
    summary: Summary
    done: asyncio.Future[None] = field(repr=False, default=None)  # type: ignore[assignment]

    def action_row(self) -> dict[str, Any]:
        return {
            "entry_id": self.entry_id,
            "seq": self.seq,
            "at_ms": self.at_ms,
            "action": self.action_json,
        }

    def entry_row(self) -> dict[str, Any]:
        s = self.summary
        return {
            "b_id": self.entry_id,
            "b_status": s.status,
            "b_progress": s.progress,
            "b_resets": s.resets,
            "b_score": s.score,
            "b_time_ms": s.time_ms,
            "b_seq": s.seq,
        }


_ENTRIES = Entry.__table__
_TOURNAMENTS = Tournament.__table__
_ACTIONS = Action.__table__
_UPDATE_ENTRY = (
    update(_ENTRIES)
    .where(_ENTRIES.c.id == bindparam("b_id"))
    .values(
        status=bindparam("b_status"),
        progress=bindparam("b_progress"),
        resets=bindparam("b_resets"),
        score=bindparam("b_score"),
        time_ms=bindparam("b_time_ms"),
        seq=bindparam("b_seq"),
    )
)


class ActionWriter:
    """One background task that commits queued appends in batches."""

    def __init__(self, engine: AsyncEngine, on_batch: Callable[[int], None] | None = None) -> None:
        self._engine = engine
        self._queue: asyncio.Queue[_Pending] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None
        self.on_batch = on_batch
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
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run())
        item = _Pending(tournament_id, entry_id, seq, at_ms, action_json, summary)
        item.done = asyncio.get_running_loop().create_future()
        await self._queue.put(item)
        await item.done

    async def close(self) -> None:
        """Commit what is queued, then stop the background task."""
        if self._task is None:
            return
        if not self._task.done():
            await self._queue.join()
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task
        self._task = None

    async def _run(self) -> None:
        while True:
            batch = [await self._queue.get()]
            while len(batch) < MAX_BATCH and not self._queue.empty():
                batch.append(self._queue.get_nowait())
            try:
                await self._commit(batch)
            except (IntegrityError, TournamentClosed):
                await self._commit_one_by_one(batch)
            except Exception as exc:  # the database is away: every caller hears of it
                for item in batch:
                    _fail(item, exc)
                    self._queue.task_done()
                continue
            self._settle(batch)
            for _ in batch:
                self._queue.task_done()

    async def _commit(self, batch: list[_Pending]) -> None:
        async with self._engine.begin() as conn:
            await _write(conn, batch)

    async def _commit_one_by_one(self, batch: list[_Pending]) -> None:
        for item in batch:
            try:
                await self._commit([item])
            except IntegrityError:
                _fail(item, DuplicateAction(f"entry {item.entry_id} already has seq {item.seq}"))
            except TournamentClosed as exc:
                _fail(item, exc)
            except Exception as exc:
                _fail(item, exc)

    def _settle(self, batch: list[_Pending]) -> None:
        settled = [item for item in batch if not item.done.done()]
        for item in settled:
            item.done.set_result(None)
        self.batches += 1
        self.appended += len(settled)
        self.largest_batch = max(self.largest_batch, len(batch))
        if self.on_batch is not None:
            self.on_batch(len(batch))


def _fail(item: _Pending, exc: BaseException) -> None:
    if not item.done.done():  # a caller that went away has a cancelled future
        item.done.set_exception(exc)


_INSERT_SQL = "INSERT INTO actions (entry_id, seq, at_ms, action) VALUES ($1, $2, $3, $4)"
_UPDATE_SQL = (  # Summary's fields in order, then the entry's id
    "UPDATE entries SET status = $1, progress = $2, resets = $3, score = $4, time_ms = $5, "
    "seq = $6 WHERE id = $7"
)


async def _write(conn: AsyncConnection, batch: list[_Pending]) -> None:
    """Two executemany calls per batch, then a check, inside the write transaction, that
    no tournament of the batch was closed meanwhile (by this or another process)."""
    if conn.dialect.paramstyle == "numeric_dollar":  # asyncpg: skip per-row processing
        await conn.exec_driver_sql(
            _INSERT_SQL, [(i.entry_id, i.seq, i.at_ms, i.action_json) for i in batch]
        )
        await conn.exec_driver_sql(_UPDATE_SQL, [(*i.summary, i.entry_id) for i in batch])
    else:
        await conn.execute(insert(_ACTIONS), [item.action_row() for item in batch])
        await conn.execute(_UPDATE_ENTRY, [item.entry_row() for item in batch])
    ids = {item.tournament_id for item in batch}
    closed = await conn.execute(
        select(_TOURNAMENTS.c.id).where(
            _TOURNAMENTS.c.id.in_(ids), _TOURNAMENTS.c.status == "closed"
        )
    )
    if closed.first() is not None:
        raise TournamentClosed("the tournament is closed")
