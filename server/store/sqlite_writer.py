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
from sqlalchemy.dialects import sqlite

from server.domain.model import DuplicateAction, Summary, TournamentClosed
from server.store.models import UTCDateTime
from server.store.sqlite_process import HEADER, frame
from server.store.writer import ACTION, ENTRY, PLAYER, Conflict, GroupCommit, Job, WriterFailed

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
    process = UTCDateTime().dialect_impl(dialect).bind_processor(dialect)
    if process is None:
        raise RuntimeError("UTCDateTime has no SQLite bind processor")
    return process


_TIME = _time_text()


class SqliteWriter(GroupCommit):
    """Queues writes and commits them in batches through the writer process."""

    def __init__(self, path: str, on_batch: Callable[[int], None] | None = None) -> None:
        super().__init__(on_batch)
        self._path = path
        self._proc: asyncio.subprocess.Process | None = None

    def append(
        self,
        tournament_id: int,
        entry_id: int,
        seq: int,
        at_ms: int,
        action_json: str,
        summary: Summary,
    ) -> asyncio.Future[None]:
        return self._submit((ACTION, tournament_id, entry_id, seq, at_ms, action_json, *summary))

    def new_player(
        self, name: str, name_key: str, token_hash: str, created_at: datetime
    ) -> asyncio.Future[int]:
        return self._submit((PLAYER, name, name_key, token_hash, _TIME(created_at)))

    def new_entry(
        self,
        tournament_id: int,
        player_id: int,
        started_at: datetime,
        deadline: datetime,
        summary: Summary,
    ) -> asyncio.Future[int]:
        return self._submit(
            (ENTRY, tournament_id, player_id, _TIME(started_at), _TIME(deadline), *summary)
        )

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
        proc.stdin.write(frame(jobs))
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
