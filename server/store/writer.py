"""Group commit: the one interface of the hot-path writers (`Writer`), what they report,
the queue both implementations share (`GroupCommit`), and the task that commits
PgWriter's batches (`CommitLoop`; the SQLite writer is driven by its pipe's replies).

Every hot-path write (an action with its entry's new summary, a new player, a new entry)
is queued. One batch at a time is committed in one transaction (one fsync); while it
commits, new writes queue and form the next batch, so under load a commit carries many
writes, and alone a write commits at once. A caller's awaitable completes only once its
own write is committed, or fails alone with a refusal (Conflict, NameErased,
DuplicateAction, TournamentClosed) while the rest of its batch commits. A batch that
fails as a whole (the database is away) fails each of its callers with WriterFailed.

Implementations: `SqliteWriter` (sqlite_writer.py, through a writer process) and
`PgWriter` (pg_writer.py, on the engine's asyncpg connections); writer_factory.py picks
one for an engine.
"""

from __future__ import annotations

import asyncio
import logging
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any, NamedTuple, Protocol

from server.domain.model import Summary
from server.ops import faults
from server.store.models import utc_naive

log = logging.getLogger("samedeal.store")

MAX_BATCH = 512


class ActionJob(NamedTuple):
    """An accepted action (its canonical text) with its entry's new summary."""

    tournament_id: int
    entry_id: int
    seq: int
    at_ms: int
    action_json: str
    summary: Summary


class PlayerJob(NamedTuple):
    """A new (non-admin) player; `created_at` naive UTC, as the database holds it."""

    name: str
    name_key: str
    token_hash: str
    created_at: datetime
    label: str | None = None  # v1.4: its first device's label (the device is made with it)


class EntryJob(NamedTuple):
    """A new entry with its first summary; times naive UTC, as the database holds them."""

    tournament_id: int
    player_id: int
    started_at: datetime
    deadline: datetime
    summary: Summary
    club_id: int | None = None  # a battle's entry: the club it plays for (v1.4)


Job = ActionJob | PlayerJob | EntryJob
"""A queued write, the one layout both writers take (each turns it into its SQL)."""


class NewPlayer(NamedTuple):
    """What a `PlayerJob` made: the player's id and its first device's."""

    player_id: int
    device_id: int


class Conflict(Exception):
    """A new player or entry broke a unique constraint (name or token taken, or the player
    already has an entry in the tournament); nothing was stored."""


class WriterFailed(Exception):
    """A write failed other than by a refusal: its batch failed as a whole (the database
    is unusable, or the writer stopped), or the database refused its values. Whether it
    was committed is unknown only if the writer died while committing."""


class Writer(Protocol):
    """Group commit of the hot-path writes. Each call queues one write and returns an
    awaitable (both writers return a plain future, so the hot path awaits no coroutine)
    that completes once that write is committed, or fails with its refusal or
    WriterFailed."""

    on_batch: Callable[[int], None] | None  # called with each committed batch's size
    batches: int  # batches committed so far (a batch that failed as a whole is not counted)
    appended: int  # actions committed so far
    largest_batch: int

    def append(
        self,
        tournament_id: int,
        entry_id: int,
        seq: int,
        at_ms: int,
        action_json: str,
        summary: Summary,
    ) -> Awaitable[None]:
        """Store the action and the entry's new summary; DuplicateAction when the entry
        has that seq, TournamentClosed when its tournament is closed (nothing stored)."""
        ...

    def new_player(
        self,
        name: str,
        name_key: str,
        token_hash: str,
        created_at: datetime,
        label: str | None = None,
    ) -> Awaitable[NewPlayer]:
        """The new (non-admin) player's id and its first device's (kind `token`, labelled
        `label`); Conflict when name_key or token_hash is taken, NameErased when name_key
        was a deleted account's (read in the write's transaction, after the insert has
        waited for a deletion in flight: a name erased before the commit is never
        registered)."""
        ...

    def new_entry(
        self,
        tournament_id: int,
        player_id: int,
        started_at: datetime,
        deadline: datetime,
        summary: Summary,
        club_id: int | None = None,
    ) -> Awaitable[int]:
        """The new entry's id (a battle's: playing for `club_id`); Conflict when the
        player has an entry in the tournament."""
        ...

    def close(self) -> Awaitable[None]:
        """Commit what is queued, then release the writer's resources. A write queued
        afterwards starts the writer again."""
        ...


Pending = tuple[Job, asyncio.Future[Any]]


class GroupCommit(ABC):
    """The queue of a `Writer`: its calls become typed jobs; a subclass sends the queue
    to its database a batch at a time (`_submit`, `close`) and settles each batch's
    callers (`_settle`)."""

    def __init__(self, on_batch: Callable[[int], None] | None = None) -> None:
        self.on_batch = on_batch
        self.batches = 0
        self.appended = 0
        self.largest_batch = 0
        self._queued: list[Pending] = []

    def append(
        self,
        tournament_id: int,
        entry_id: int,
        seq: int,
        at_ms: int,
        action_json: str,
        summary: Summary,
    ) -> asyncio.Future[None]:
        return self._submit(ActionJob(tournament_id, entry_id, seq, at_ms, action_json, summary))

    def new_player(
        self,
        name: str,
        name_key: str,
        token_hash: str,
        created_at: datetime,
        label: str | None = None,
    ) -> asyncio.Future[NewPlayer]:
        job = PlayerJob(name, name_key, token_hash, utc_naive(created_at), label)
        return self._submit(job)

    def new_entry(
        self,
        tournament_id: int,
        player_id: int,
        started_at: datetime,
        deadline: datetime,
        summary: Summary,
        club_id: int | None = None,
    ) -> asyncio.Future[int]:
        started, ends = utc_naive(started_at), utc_naive(deadline)
        return self._submit(EntryJob(tournament_id, player_id, started, ends, summary, club_id))

    @abstractmethod
    def _submit(self, job: Job) -> asyncio.Future[Any]:
        """Queue the job; its caller's future."""

    @abstractmethod
    async def close(self) -> None:
        """Commit what is queued, then release what the writer holds."""

    def _next_batch(self) -> list[Pending]:
        batch, self._queued = self._queued[:MAX_BATCH], self._queued[MAX_BATCH:]
        return batch

    def _settle(self, batch: list[Pending], outcomes: list[object]) -> None:
        appended = 0
        for (job, done), outcome in zip(batch, outcomes, strict=True):
            if done.done():  # its caller went away
                appended += type(job) is ActionJob and not isinstance(outcome, Exception)
            elif isinstance(outcome, Exception):
                done.set_exception(outcome)
            else:
                done.set_result(outcome)
                appended += type(job) is ActionJob
        self.appended += appended
        self.batches += 1
        n = len(batch)
        if n > self.largest_batch:
            self.largest_batch = n
        if self.on_batch is not None:
            self.on_batch(n)

    def _failed(self, batch: list[Pending], exc: Exception) -> None:
        """The batch failed as a whole: logged, and every caller of it hears of it."""
        if not faults.report(exc, "write"):
            log.error("a batch of %d writes failed: %s", len(batch), exc)
        _fail_all(batch, exc)


class CommitLoop(GroupCommit):
    """A `GroupCommit` whose batches a task commits one after the other (`_commit`, a
    coroutine: PgWriter's, on the engine's connections)."""

    def __init__(self, on_batch: Callable[[int], None] | None = None) -> None:
        super().__init__(on_batch)
        self._wake: asyncio.Event | None = None
        self._task: asyncio.Task[None] | None = None
        self._closing = False

    @abstractmethod
    async def _commit(self, jobs: list[Job]) -> list[object]:
        """Commit the jobs in one transaction; per job its result (None for an action,
        a NewPlayer for a player, the new entry's id) or the refusal (an exception) it
        failed with alone. Raises when the batch failed as a whole."""

    @abstractmethod
    async def _stop(self) -> None:
        """Release what the writer holds once its queue is drained."""

    async def close(self) -> None:
        # (a loop: a write queued just as the task returned starts another task)
        while (task := self._task) is not None and not task.done():
            assert self._wake is not None
            self._closing = True
            self._wake.set()
            try:
                await asyncio.shield(task)  # it drains the queue, then returns
            finally:
                self._closing = False
        self._task = None
        await self._stop()

    def _submit(self, job: Job) -> asyncio.Future[Any]:
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
        wake = self._wake
        assert wake is not None
        while True:
            if not self._queued:
                if self._closing:
                    return
                wake.clear()
                await wake.wait()
                continue
            batch = self._next_batch()
            try:
                outcomes = await self._commit([job for job, _ in batch])
            except Exception as exc:  # every caller of the batch hears of it
                self._failed(batch, exc)
                continue
            self._settle(batch, outcomes)


def _fail_all(batch: list[Pending], exc: Exception) -> None:
    """A failure of its own for each caller (one exception raised in many tasks would
    collect all their tracebacks)."""
    if isinstance(exc, WriterFailed):
        message, cause = str(exc), exc.__cause__
    else:
        message, cause = f"database writer failed: {type(exc).__name__}: {exc}", exc
    for _, done in batch:
        if not done.done():
            failed = WriterFailed(message)
            failed.__cause__ = cause
            done.set_exception(failed)
