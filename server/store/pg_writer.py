"""The `Writer` for PostgreSQL: group commit in a task on the event loop, through the
engine's asyncpg connections (which wait without holding the interpreter).

A batch is one transaction of raw SQL (prepared once per connection, no per-row work in
SQLAlchemy): new players and new entries each as one INSERT over unnest()ed arrays that
skips a conflicting row (ON CONFLICT DO NOTHING) and returns the ids of the rows it
stored; the actions by executemany; their entries' summaries by executemany (with the
chain head only at a checkpoint: a summary's log_hash '' keeps the row's); last, the
batch's notices for the other nodes (cluster.py: new entries, entries' new summaries),
delivered at commit. First of all, the batch share-locks its tournaments' rows and reads
which are closed: their actions and entries are refused, and a close (an UPDATE of the
row) cannot commit until the batch has.

A refusal fails its own write alone: a closed tournament's writes are left out; a
duplicate action aborts the transaction (the fast path has no savepoint), and the batch
is written again with the actions inserted so that a taken (entry, seq) is skipped and
reported. Either way one transaction commits per batch. Only
a row the database refuses for another reason (a foreign key, a value too long) makes
the batch commit job by job.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any

from sqlalchemy.exc import DataError, IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from server.domain.model import DuplicateAction, Summary, TournamentClosed
from server.store import cluster
from server.store.models import utc_naive
from server.store.writer import ACTION, ENTRY, PLAYER, Conflict, GroupCommit, Job, WriterFailed

_INSERT_PLAYERS = (
    "INSERT INTO players (name, name_key, token_hash, admin, created_at)"
    " SELECT n, k, h, false, c"
    " FROM unnest($1::varchar[], $2::varchar[], $3::varchar[], $4::timestamp[]) AS u (n, k, h, c)"
    " ON CONFLICT DO NOTHING RETURNING id, name_key, token_hash"
)
_INSERT_ENTRIES = (  # Summary's fields in order after the entry's own; log_seq = seq
    "INSERT INTO entries (tournament_id, player_id, started_at, deadline,"
    " status, progress, resets, score, time_ms, seq, log_hash, log_seq)"
    " SELECT *, u.seq FROM unnest($1::integer[], $2::integer[], $3::timestamp[],"
    " $4::timestamp[], $5::varchar[], $6::integer[], $7::integer[], $8::integer[],"
    " $9::integer[], $10::integer[], $11::varchar[])"
    " AS u (t, p, s, d, st, pr, r, sc, tm, seq, h)"
    " ON CONFLICT DO NOTHING RETURNING id, tournament_id, player_id"
)
_INSERT_ACTION = "INSERT INTO actions (entry_id, seq, at_ms, action) VALUES ($1, $2, $3, $4)"
_INSERT_NEW_ACTIONS = (  # after a duplicate: a taken (entry, seq) is skipped, not an error
    "INSERT INTO actions (entry_id, seq, at_ms, action)"
    " SELECT * FROM unnest($1::integer[], $2::integer[], $3::integer[], $4::text[])"
    " ON CONFLICT (entry_id, seq) DO NOTHING RETURNING entry_id, seq"
)
_UPDATE_ENTRY = (  # Summary's fields in order, then the entry's id; a log_hash of ''
    # (not a checkpoint) keeps the row's cached head and its log_seq
    "UPDATE entries SET status = $1, progress = $2, resets = $3, score = $4, time_ms = $5,"
    " seq = $6, log_hash = CASE $7::varchar WHEN '' THEN log_hash ELSE $7::varchar END,"
    " log_seq = CASE $7::varchar WHEN '' THEN log_seq ELSE $6 END WHERE id = $8"
)
_SHARE = (  # the batch's tournaments, share-locked in id order; the closed ones
    "SELECT id FROM (SELECT id, status FROM tournaments WHERE id = ANY($1::integer[])"
    " ORDER BY id FOR SHARE) t WHERE status = 'closed'"
)


class PgWriter(GroupCommit):
    """Queues writes and commits them in batches on the engine (asyncpg only)."""

    def __init__(self, engine: AsyncEngine, on_batch: Callable[[int], None] | None = None) -> None:
        super().__init__(on_batch)
        self._engine = engine

    def append(
        self,
        tournament_id: int,
        entry_id: int,
        seq: int,
        at_ms: int,
        action_json: str,
        summary: Summary,
    ) -> asyncio.Future[None]:
        return self._submit((ACTION, tournament_id, entry_id, seq, at_ms, action_json, summary))

    def new_player(
        self, name: str, name_key: str, token_hash: str, created_at: datetime
    ) -> asyncio.Future[int]:
        return self._submit((PLAYER, name, name_key, token_hash, utc_naive(created_at)))

    def new_entry(
        self,
        tournament_id: int,
        player_id: int,
        started_at: datetime,
        deadline: datetime,
        summary: Summary,
    ) -> asyncio.Future[int]:
        started, ends = utc_naive(started_at), utc_naive(deadline)
        return self._submit((ENTRY, tournament_id, player_id, started, ends, *summary))

    async def _commit(self, jobs: list[Job]) -> list[object]:
        careful = False  # insert actions skipping a taken (entry, seq)
        while True:
            try:
                async with self._engine.begin() as conn:
                    return await _write(conn, jobs, careful)
            except (IntegrityError, DataError):
                if careful:
                    return await self._one_by_one(jobs)
                careful = True

    async def _stop(self) -> None:
        """Nothing to release: the connections are the engine's (the Store disposes it)."""

    async def _one_by_one(self, jobs: list[Job]) -> list[object]:
        """Each job in its own transaction (a row the database refuses, other than a
        duplicate or a conflict: a batch cannot skip it)."""
        outcomes: list[object] = []
        for job in jobs:
            try:
                async with self._engine.begin() as conn:
                    outcome = (await _write(conn, [job], True))[0]
            except IntegrityError as exc:
                outcome = (DuplicateAction if job[0] == ACTION else Conflict)(str(exc.orig))
            except Exception as exc:
                outcome = WriterFailed(f"{type(exc).__name__}: {exc}")
            outcomes.append(outcome)
        return outcomes


async def _write(conn: AsyncConnection, jobs: list[Job], careful: bool) -> list[object]:
    """Write the jobs in the open transaction; each one's outcome. Raises IntegrityError
    on a duplicate action unless careful (the transaction is then unusable)."""
    outcomes: list[object] = [None] * len(jobs)
    actions: list[tuple[int, Job]] = []
    players: list[tuple[int, Job]] = []
    entries: list[tuple[int, Job]] = []
    ids = list({job[1] for job in jobs if job[0] in (ACTION, ENTRY)})
    closed: set[int] = set()
    if ids:  # share-locked: a close (an UPDATE of the row) waits for this batch, or it waits
        closed = {row[0] for row in await conn.exec_driver_sql(_SHARE, (ids,))}
    for i, job in enumerate(jobs):
        kind = job[0]
        if kind in (ACTION, ENTRY) and job[1] in closed:
            outcomes[i] = TournamentClosed(f"tournament {job[1]} is closed")
        elif kind == ACTION:
            actions.append((i, job))
        elif kind == PLAYER:
            players.append((i, job))
        elif kind == ENTRY:
            entries.append((i, job))
        else:
            raise ValueError(f"unknown job {kind!r}")
    if players:  # rows come back as (id, name_key, token_hash)
        await _insert_new(conn, _INSERT_PLAYERS, players, outcomes, (2, 3), _name_taken)
    if entries:  # rows come back as (id, tournament_id, player_id)
        await _insert_new(conn, _INSERT_ENTRIES, entries, outcomes, (1, 2), _entry_taken)
    notices = [
        cluster.join_line(job[1], outcome)
        for (i, job) in entries
        if isinstance(outcome := outcomes[i], int)
    ]
    if actions:
        written = await _write_actions(conn, actions, careful, outcomes)
        notices += [cluster.entry_line(job[1], job[2], job[6]) for _, job in written]
    if notices:
        await conn.exec_driver_sql(cluster.NOTIFY_SQL, [(p,) for p in cluster.payloads(notices)])
    return outcomes


def _name_taken(job: Job) -> str:
    return f"the name {job[1]!r} or its token is taken"


def _entry_taken(job: Job) -> str:
    return f"player {job[2]} has an entry in tournament {job[1]}"


async def _insert_new(
    conn: AsyncConnection,
    sql: str,
    new: list[tuple[int, Job]],
    outcomes: list[object],
    key: tuple[int, int],
    refusal: Callable[[Job], str],
) -> None:
    """Insert new rows (players or entries) skipping conflicts; each job's outcome is its
    new id, matched by the job's fields at `key` against the returned row's other
    columns, or Conflict when its row was skipped."""
    rows = await _insert(conn, sql, [job[1:] for _, job in new])
    made = {tuple(row[1:]): row[0] for row in rows}
    for i, job in new:
        new_id = made.pop((job[key[0]], job[key[1]]), None)
        outcomes[i] = Conflict(refusal(job)) if new_id is None else new_id


async def _insert(conn: AsyncConnection, sql: str, rows: list[Job]) -> Iterable[Any]:
    """One INSERT ... SELECT FROM unnest() of the rows, passed as one array per column;
    the rows it returns."""
    columns = tuple(zip(*rows, strict=True))
    return (await conn.exec_driver_sql(sql, columns)).all()


async def _write_actions(
    conn: AsyncConnection, actions: list[tuple[int, Job]], careful: bool, outcomes: list[object]
) -> list[tuple[int, Job]]:
    """Insert the actions and update their entries; the actions written."""
    if careful:
        inserted = await _insert(conn, _INSERT_NEW_ACTIONS, [job[2:6] for _, job in actions])
        stored = set(map(tuple, inserted))
        kept = []
        for i, job in actions:
            key = (job[2], job[3])
            if key in stored:
                stored.discard(key)
                kept.append((i, job))
            else:
                outcomes[i] = DuplicateAction(f"entry {job[2]} already has seq {job[3]}")
        actions = kept
        if not actions:
            return actions
    else:
        await conn.exec_driver_sql(_INSERT_ACTION, [job[2:6] for _, job in actions])
    await conn.exec_driver_sql(_UPDATE_ENTRY, [(*job[6], job[2]) for _, job in actions])
    return actions
