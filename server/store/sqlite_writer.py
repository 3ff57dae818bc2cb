"""The `Writer` for SQLite: group commit through a writer process
(`server.store.sqlite_process`).

Each batch goes to the writer process, which commits it in one transaction (one fsync)
and answers with each job's outcome. All hot-path writes share its one connection, so
they never wait on each other for SQLite's write lock, and the database work runs outside
this interpreter, so it never contends with the event loop for the GIL (measured: a
writer thread cost a quarter of the throughput, see docs/BENCHMARKS.md). The process is
started on the first write, replaced when it dies, and stopped by `close`.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from datetime import datetime
from typing import Any

import orjson
from sqlalchemy import DateTime
from sqlalchemy.dialects import sqlite

from server.domain.model import DuplicateAction, TournamentClosed
from server.store.rows import summary_columns
from server.store.sqlite_process import HEADER, frame
from server.store.writer import (
    ActionJob,
    Conflict,
    GroupCommit,
    Job,
    PlayerJob,
    WriterFailed,
)

_REFUSALS: dict[str, type[Exception]] = {
    "duplicate": DuplicateAction,
    "closed": TournamentClosed,
    "conflict": Conflict,
    "error": WriterFailed,
}


def _time_text() -> Callable[[datetime], str]:
    """How SQLAlchemy stores an aware datetime on SQLite, as text (so that its reads
    parse it and its queries compare with it: `due_entries` compares deadlines as text,
    and orjson would write a bare datetime as "…T…", which sorts after "… …")."""
    dialect = sqlite.dialect()
    process = DateTime().dialect_impl(dialect).bind_processor(dialect)  # UTCDateTime's impl
    if process is None:
        raise RuntimeError("DateTime has no SQLite bind processor")
    return process  # (of a naive UTC datetime, as the jobs hold them)


def wire(job: Job) -> list[Any]:
    """A job as the writer process reads it (sqlite_process.py): its kind, then its
    fields in order, the summary as its columns, times as the text SQLAlchemy stores."""
    if isinstance(job, ActionJob):
        t, entry, seq, at_ms, text, summary = job
        return ["action", t, entry, seq, at_ms, text, *summary_columns(summary)]
    if isinstance(job, PlayerJob):
        return ["player", *job[:3], _TIME(job.created_at), job.label]
    started, ends = _TIME(job.started_at), _TIME(job.deadline)
    columns = summary_columns(job.summary)
    return ["entry", job.tournament_id, job.player_id, started, ends, *columns, job.club_id]


_TIME = _time_text()


class SqliteWriter(GroupCommit):
    """Queues writes and commits them in batches through the writer process."""

    def __init__(self, path: str, on_batch: Callable[[int], None] | None = None) -> None:
        super().__init__(on_batch)
        self._path = path
        self._proc: asyncio.subprocess.Process | None = None

    # -- internals -------------------------------------------------------
    async def _commit(self, jobs: list[Job]) -> list[object]:
        try:
            outcomes = await self._exchange(jobs)
        except Exception as exc:  # the process died: this batch's fate is unknown
            await self._stop()  # the next batch starts a new one
            raise WriterFailed(f"the SQLite writer process failed: {exc!r}") from exc
        return [_REFUSALS[o[0]](o[1]) if isinstance(o, list) else o for o in outcomes]

    async def _exchange(self, jobs: list[Job]) -> list[Any]:
        proc = self._proc
        if proc is None or proc.returncode is not None:
            proc = self._proc = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "server.store.sqlite_process",
                self._path,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
            )
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(frame([wire(job) for job in jobs]))
        await proc.stdin.drain()
        header = await proc.stdout.readexactly(HEADER.size)
        outcomes: list[Any] = orjson.loads(await proc.stdout.readexactly(HEADER.unpack(header)[0]))
        return outcomes

    async def _stop(self) -> None:
        """Stop the writer process (it finishes the batch in hand and exits)."""
        proc, self._proc = self._proc, None
        if proc is None or proc.returncode is not None:
            return
        assert proc.stdin is not None
        proc.stdin.close()
        try:
            await asyncio.wait_for(proc.wait(), timeout=30)
        except TimeoutError:
            proc.kill()
            await proc.wait()
