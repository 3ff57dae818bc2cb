"""Group commit for SQLite, through a writer process (`server.store.sqlite_process`).

Every write of the hot path (an action with its entry's new summary, a new player, a
new entry) is queued here. One batch at a time goes to the writer process, which
commits it in one transaction (one fsync) and answers; meanwhile new writes queue and
form the next batch. A caller returns only after its own write is committed. All
hot-path writes share one connection, so they never wait on each other for SQLite's
write lock, and the database work runs outside this interpreter, so it never contends
with the event loop for the GIL (measured: a writer thread cost a quarter of the
throughput, see docs/BENCHMARKS.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
from collections.abc import Callable
from typing import Any

import orjson

from server.domain.model import DuplicateAction, Summary, TournamentClosed
from server.store.sqlite_process import HEADER, frame
from server.store.writer import MAX_BATCH

log = logging.getLogger("samedeal.store")


class Conflict(Exception):
    """An insert broke a unique constraint (nothing was stored)."""


class WriterFailed(Exception):
    """The batch failed as a whole (the database is unusable, or the writer stopped);
    whether it was committed is unknown only if the writer died while committing."""


_REFUSALS: dict[str, type[Exception]] = {
    "duplicate": DuplicateAction,
    "closed": TournamentClosed,
    "conflict": Conflict,
    "error": WriterFailed,
}


class SqliteWriter:
    """Queues writes and commits them in batches through the writer process."""

    def __init__(self, path: str, on_batch: Callable[[int], None] | None = None) -> None:
        self._path = path
        self.on_batch = on_batch
        self._queued: list[tuple[list[Any], asyncio.Future[Any]]] = []
        self._wake: asyncio.Event | None = None
        self._task: asyncio.Task[None] | None = None
        self._proc: asyncio.subprocess.Process | None = None
        self._busy = False  # a batch is with the writer process
        self.batches = 0
        self.appended = 0
        self.largest_batch = 0

    def append(
        self,
        tournament_id: int,
        entry_id: int,
        seq: int,
        at_ms: int,
        action_json: str,
        summary: Summary,
    ) -> asyncio.Future[None]:
        """A future that resolves once the action and the entry's new summary are
        committed, or fails with DuplicateAction or TournamentClosed (nothing stored).
        (A plain future, not a coroutine: the hot path awaits it directly.)"""
        job = ["action", tournament_id, entry_id, seq, at_ms, action_json, *summary]
        return self._submit(job)

    async def insert_player(self, name: str, name_key: str, token_hash: str, at: str) -> int:
        """The new player's id; Conflict when the name or token is taken."""
        return int(await self._submit(["player", name, name_key, token_hash, at]))

    async def insert_entry(self, *row: object) -> int:
        """The new entry's id (columns as sqlite_process documents); Conflict when the
        player already has an entry in the tournament."""
        return int(await self._submit(["entry", *row]))

    async def close(self) -> None:
        """Commit what is queued, then stop the writer process."""
        while (self._queued or self._busy) and self._task is not None and not self._task.done():
            await asyncio.sleep(0.005)
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        await self._stop_process()

    # -- internals -------------------------------------------------------
    def _submit(self, job: list[Any]) -> asyncio.Future[Any]:
        loop = asyncio.get_running_loop()
        done = loop.create_future()
        self._queued.append((job, done))
        if self._task is None or self._task.done():
            self._wake = asyncio.Event()
            self._task = loop.create_task(self._run())
        assert self._wake is not None
        self._wake.set()
        return done

    async def _run(self) -> None:
        assert self._wake is not None
        while True:
            if not self._queued:
                self._wake.clear()
                await self._wake.wait()
            batch, self._queued = self._queued[:MAX_BATCH], self._queued[MAX_BATCH:]
            self._busy = True
            try:
                outcomes = await self._exchange([job for job, _ in batch])
            except Exception as exc:  # the process died: this batch's fate is unknown
                log.error("the SQLite writer process failed: %s", exc)
                await self._stop_process()
                outcomes = [["error", f"database writer failed: {exc}"]] * len(batch)
            self._settle(batch, outcomes)
            self._busy = False

    async def _exchange(self, jobs: list[list[Any]]) -> list[Any]:
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

    def _settle(
        self, batch: list[tuple[list[Any], asyncio.Future[Any]]], outcomes: list[Any]
    ) -> None:
        for (job, done), outcome in zip(batch, outcomes, strict=True):
            if isinstance(outcome, list):
                error: Exception = _REFUSALS[outcome[0]](outcome[1])
                if not done.done():
                    done.set_exception(error)
                continue
            if job[0] == "action":
                self.appended += 1
            if not done.done():  # else its caller went away
                done.set_result(outcome)
        self.batches += 1
        self.largest_batch = max(self.largest_batch, len(batch))
        if self.on_batch is not None:
            self.on_batch(len(batch))

    async def _stop_process(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None or proc.returncode is not None:
            return
        assert proc.stdin is not None
        proc.stdin.close()  # it finishes the batch in hand and exits
        try:
            await asyncio.wait_for(proc.wait(), timeout=30)
        except TimeoutError:
            proc.kill()
            await proc.wait()
