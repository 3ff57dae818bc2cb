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

from server.domain.model import DuplicateAction, NameErased, TournamentClosed
from server.store.rows import summary_columns
from server.store.sqlite_process import HEADER, frame
from server.store.writer import (
    ActionJob,
    Conflict,
    GroupCommit,
    Job,
    NewPlayer,
    Pending,
    PlayerJob,
    WriterFailed,
)

_REFUSALS: dict[str, type[Exception]] = {
    "duplicate": DuplicateAction,
    "closed": TournamentClosed,
    "conflict": Conflict,
    "erased": NameErased,
    "error": WriterFailed,
}


def _outcome(reply: list[Any]) -> object:
    """A job's outcome the process sent as a list: a new player's ids, or a refusal."""
    if type(reply[0]) is int:
        return NewPlayer(*reply)
    return _REFUSALS[reply[0]](reply[1])


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


class _Pipes(asyncio.SubprocessProtocol):
    """The writer process's pipes: each reply frame read from its output goes to
    `on_reply`; `on_gone` once its output closes (the process stopped or died)."""

    stdin = stdout = stderr = None  # (for asyncio.subprocess.Process: no streams)

    def __init__(self, on_reply: Callable[[Any], None], on_gone: Callable[[], None]) -> None:
        self.on_reply = on_reply
        self.on_gone = on_gone
        self.gone = False
        self._buffer = b""

    def pipe_data_received(self, fd: int, data: bytes) -> None:
        buffer = self._buffer + data if self._buffer else data
        size = HEADER.size
        while len(buffer) >= size:
            end = size + int.from_bytes(buffer[:size], "big")
            if len(buffer) < end:
                break
            self.on_reply(orjson.loads(buffer[size:end]))
            buffer = buffer[end:]
        self._buffer = buffer

    def pipe_connection_lost(self, fd: int, exc: Exception | None) -> None:
        if fd == 1 and not self.gone:
            self.gone = True
            self.on_gone()


class SqliteWriter(GroupCommit):
    """Queues writes and commits them in batches through the writer process: a batch is
    sent when the one in flight is answered (or, idle, on the next turn of the event
    loop, so that the writes of one turn share it), and settled from the reply's
    callback (no task between the callers and the pipe)."""

    def __init__(self, path: str, on_batch: Callable[[int], None] | None = None) -> None:
        super().__init__(on_batch)
        self._path = path
        self._proc: asyncio.subprocess.Process | None = None
        self._pipes: _Pipes | None = None
        self._stdin: Any = None  # the process's input (uvloop's is no asyncio.Transport)
        self._flight: list[Pending] | None = None  # the batch the process is committing
        self._soon = False  # a send is scheduled
        self._starting: asyncio.Task[None] | None = None
        self._drained: asyncio.Future[None] | None = None  # `close` waits on it

    def _submit(self, job: Job) -> asyncio.Future[Any]:
        loop = asyncio.get_running_loop()
        done = loop.create_future()
        self._queued.append((job, done))
        if self._flight is None and not self._soon:
            self._soon = True
            loop.call_soon(self._send)
        return done

    def _send(self) -> None:
        """Send the next batch, unless one is in flight (starting the process first if
        there is none)."""
        self._soon = False
        if self._flight is not None or self._starting is not None:
            return
        if not self._queued:
            self._wake_close()
            return
        if self._pipes is None or self._pipes.gone or self._stdin is None:
            self._starting = asyncio.get_running_loop().create_task(self._start())
            return
        batch = self._next_batch()
        try:
            data = frame([wire(job) for job, _ in batch])
        except Exception as exc:  # a value the wire cannot carry: this batch alone fails
            self._failed(batch, WriterFailed(f"the batch could not be sent: {exc!r}"))
            self._send()
            return
        self._flight = batch
        self._stdin.write(data)

    async def _start(self) -> None:
        """A new writer process (the first, or one to replace a dead one)."""
        loop = asyncio.get_running_loop()
        try:
            pipes = _Pipes(self._replied, lambda: self._gone(pipes))
            transport, _ = await loop.subprocess_exec(
                lambda: pipes,
                sys.executable,
                "-m",
                "server.store.sqlite_process",
                self._path,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=None,
            )
        except Exception as exc:  # no process: what is queued fails
            batch, self._queued = self._queued, []
            self._failed(batch, WriterFailed(f"the SQLite writer process failed: {exc!r}"))
            return
        finally:
            self._starting = None
        self._proc = asyncio.subprocess.Process(transport, pipes, loop)
        if pipes.gone:  # it died at once: the next batch fails (the one after tries again)
            self._failed(self._next_batch(), WriterFailed("the SQLite writer process exited"))
            self._schedule()
            return
        self._pipes, self._stdin = pipes, transport.get_pipe_transport(0)
        self._send()

    def _replied(self, outcomes: list[Any]) -> None:
        batch, self._flight = self._flight, None
        if batch is None:  # (never: one reply per batch)
            return
        self._settle(batch, [_outcome(o) if type(o) is list else o for o in outcomes])
        if self._queued:
            self._send()
        elif self._drained is not None:
            self._wake_close()

    def _gone(self, pipes: _Pipes) -> None:
        """The process's output closed: the batch in flight has an unknown fate; the
        next batch starts a new process."""
        if pipes is not self._pipes:
            return
        self._pipes = self._stdin = None
        batch, self._flight = self._flight, None
        if batch is not None:
            self._failed(batch, WriterFailed("the SQLite writer process failed: it went away"))
        self._schedule()

    def _schedule(self) -> None:
        if not self._soon:
            self._soon = True
            asyncio.get_running_loop().call_soon(self._send)

    def _wake_close(self) -> None:
        drained, self._drained = self._drained, None
        if drained is not None and not drained.done():
            drained.set_result(None)

    async def close(self) -> None:
        """Commit what is queued, then stop the process (it finishes the batch in hand
        and exits); a write queued afterwards starts a new one."""
        while self._queued or self._flight is not None or self._starting is not None:
            self._drained = asyncio.get_running_loop().create_future()
            if not self._soon and self._flight is None and self._starting is None:
                self._send()
            if self._queued or self._flight is not None or self._starting is not None:
                await self._drained
        await self._stop()

    async def _stop(self) -> None:
        """Stop the writer process (it finishes the batch in hand and exits)."""
        proc, stdin, self._proc, self._pipes, self._stdin = (
            self._proc,
            self._stdin,
            None,
            None,
            None,
        )
        if proc is None or proc.returncode is not None:
            return
        if stdin is not None:
            stdin.close()
        try:
            await asyncio.wait_for(proc.wait(), timeout=30)
        except TimeoutError:
            proc.kill()
            await proc.wait()
