"""The `Writer` for PostgreSQL: group commit in a task on the event loop, through the
engine's asyncpg connections (which wait without holding the interpreter).

A batch is one transaction of raw SQL (prepared once per connection, no per-row work in
SQLAlchemy): new players and new entries each as one INSERT over unnest()ed arrays that
skips a conflicting row (ON CONFLICT DO NOTHING) and returns the ids of the rows it
stored (a new player of an erased name is refused: `_write_players`); the actions by
executemany; their entries' summaries by executemany (with the chain head only at a
checkpoint: a summary's log_hash '' keeps the row's); last, the batch's notices for the
other nodes (pg_coordination.py: new entries, entries' new summaries), delivered at
commit. First of all, the batch share-locks its tournaments' rows and reads
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

import contextlib
from collections.abc import Callable, Iterable
from typing import Any

from sqlalchemy.exc import DataError, DBAPIError, IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from server.domain.model import DuplicateAction, NameErased, TournamentClosed
from server.store import pg_coordination
from server.store.rows import summary_columns
from server.store.writer import (
    ActionJob,
    CommitLoop,
    Conflict,
    EntryJob,
    Job,
    NewPlayer,
    PlayerJob,
    WriterFailed,
)

_INSERT_PLAYERS = (
    "INSERT INTO players (name, name_key, token_hash, admin, created_at)"
    " SELECT n, k, h, false, c"
    " FROM unnest($1::varchar[], $2::varchar[], $3::varchar[], $4::timestamp[]) AS u (n, k, h, c)"
    " WHERE NOT EXISTS (SELECT 1 FROM erased_names e WHERE e.name_key = u.k)"
    " ON CONFLICT DO NOTHING RETURNING id, name_key, token_hash"
)
_ERASED = "SELECT name_key FROM erased_names WHERE name_key = ANY($1::varchar[])"
_DELETE_PLAYERS = "DELETE FROM players WHERE id = ANY($1::integer[])"
_INSERT_DEVICES = (  # new players' first devices (PROTOCOL.md "Accounts")
    "INSERT INTO devices (player_id, token_hash, kind, label, created_at, last_seen_at)"
    " SELECT p, h, 'token', l, c, c"
    " FROM unnest($1::integer[], $2::varchar[], $3::varchar[], $4::timestamp[]) AS u (p, h, l, c)"
    " RETURNING id, player_id"
)
_INSERT_ENTRIES = (  # summary_columns after the entry's own; log_seq = seq
    "INSERT INTO entries (tournament_id, player_id, started_at, deadline,"
    " status, progress, resets, score, time_ms, seq, log_hash, club_id, log_seq)"
    " SELECT *, u.seq FROM unnest($1::integer[], $2::integer[], $3::timestamp[],"
    " $4::timestamp[], $5::varchar[], $6::integer[], $7::integer[], $8::integer[],"
    " $9::integer[], $10::integer[], $11::varchar[], $12::integer[])"
    " AS u (t, p, s, d, st, pr, r, sc, tm, seq, h, c)"
    " ON CONFLICT DO NOTHING RETURNING id, tournament_id, player_id"
)
_INSERT_ACTION = "INSERT INTO actions (entry_id, seq, at_ms, action) VALUES ($1, $2, $3, $4)"
_INSERT_NEW_ACTIONS = (  # after a duplicate: a taken (entry, seq) is skipped, not an error
    "INSERT INTO actions (entry_id, seq, at_ms, action)"
    " SELECT * FROM unnest($1::integer[], $2::integer[], $3::integer[], $4::text[])"
    " ON CONFLICT (entry_id, seq) DO NOTHING RETURNING entry_id, seq"
)
_UPDATE_ENTRY = (  # summary_columns, then the entry's id; a log_hash of ''
    # (not a checkpoint) keeps the row's cached head and its log_seq
    "UPDATE entries SET status = $1, progress = $2, resets = $3, score = $4, time_ms = $5,"
    " seq = $6, log_hash = CASE $7::varchar WHEN '' THEN log_hash ELSE $7::varchar END,"
    " log_seq = CASE $7::varchar WHEN '' THEN log_seq ELSE $6 END WHERE id = $8"
)
_SHARE = (  # the batch's tournaments, share-locked in id order; the closed ones
    "SELECT id FROM (SELECT id, status FROM tournaments WHERE id = ANY($1::integer[])"
    " ORDER BY id FOR SHARE) t WHERE status = 'closed'"
)


def refused(exc: BaseException) -> bool:
    """Whether the database refused a row (SQLSTATE class 23, an integrity constraint, or
    22, a data exception such as a value too long for its column) rather than failed.
    asyncpg's data exceptions reach SQLAlchemy as a plain DBAPIError, not a DataError."""
    if isinstance(exc, IntegrityError | DataError):
        return True
    state = getattr(getattr(exc, "orig", None), "sqlstate", None)
    return isinstance(exc, DBAPIError) and isinstance(state, str) and state[:2] in ("22", "23")


class PgWriter(CommitLoop):
    """Queues writes and commits them in batches on the engine (asyncpg only)."""

    def __init__(self, engine: AsyncEngine, on_batch: Callable[[int], None] | None = None) -> None:
        super().__init__(on_batch)
        self._engine = engine

    async def _commit(self, jobs: list[Job]) -> list[object]:
        careful = False  # insert actions skipping a taken (entry, seq)
        while True:
            try:
                return await self._attempt(jobs, careful)
            except DBAPIError as exc:
                if not refused(exc):
                    raise
                if careful:
                    return await self._one_by_one(jobs)
                careful = True

    async def _attempt(self, jobs: list[Job], careful: bool) -> list[object]:
        """One transaction of the jobs. A connection that fails other than by a refusal
        (the database went away mid-batch) is invalidated: never back into the pool,
        where its next user would find it mid-operation."""
        async with self._engine.connect() as conn:
            try:
                async with conn.begin():
                    return await _write(conn, jobs, careful)
            except BaseException as exc:
                if not refused(exc):
                    with contextlib.suppress(Exception):
                        await conn.invalidate()
                raise

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
                refusal = DuplicateAction if isinstance(job, ActionJob) else Conflict
                outcome = refusal(str(exc.orig))
            except Exception as exc:
                outcome = WriterFailed(f"{type(exc).__name__}: {exc}")
            outcomes.append(outcome)
        return outcomes


async def _write(conn: AsyncConnection, jobs: list[Job], careful: bool) -> list[object]:
    """Write the jobs in the open transaction; each one's outcome. Raises IntegrityError
    on a duplicate action unless careful (the transaction is then unusable)."""
    outcomes: list[object] = [None] * len(jobs)
    actions: list[tuple[int, ActionJob]] = []
    players: list[tuple[int, PlayerJob]] = []
    entries: list[tuple[int, EntryJob]] = []
    ids = list({job.tournament_id for job in jobs if not isinstance(job, PlayerJob)})
    closed: set[int] = set()
    if ids:  # share-locked: a close (an UPDATE of the row) waits for this batch, or it waits
        closed = {row[0] for row in await conn.exec_driver_sql(_SHARE, (ids,))}
    for i, job in enumerate(jobs):
        if isinstance(job, PlayerJob):
            players.append((i, job))
        elif job.tournament_id in closed:
            outcomes[i] = TournamentClosed(f"tournament {job.tournament_id} is closed")
        elif isinstance(job, ActionJob):
            actions.append((i, job))
        else:
            entries.append((i, job))
    if players:
        await _write_players(conn, players, outcomes)
    if entries:  # rows come back as (id, tournament_id, player_id)
        rows = [
            (
                e.tournament_id,
                e.player_id,
                e.started_at,
                e.deadline,
                *summary_columns(e.summary),
                e.club_id,
            )
            for _, e in entries
        ]
        made = {tuple(r[1:]): r[0] for r in await _insert(conn, _INSERT_ENTRIES, rows)}
        for i, e in entries:
            new_id = made.pop((e.tournament_id, e.player_id), None)
            outcomes[i] = new_id if new_id is not None else Conflict(_entry_taken(e))
    notices = [
        pg_coordination.join_line(e.tournament_id, outcome)
        for (i, e) in entries
        if isinstance(outcome := outcomes[i], int)
    ]
    if actions:
        written = await _write_actions(conn, actions, careful, outcomes)
        notices += [
            pg_coordination.entry_line(
                a.tournament_id, a.entry_id, a.summary.seq, a.summary.figures
            )
            for _, a in written
        ]
    if notices:
        await conn.exec_driver_sql(
            pg_coordination.NOTIFY_SQL, [(p,) for p in pg_coordination.payloads(notices)]
        )
    return outcomes


async def _write_players(
    conn: AsyncConnection, players: list[tuple[int, PlayerJob]], outcomes: list[object]
) -> None:
    """Insert the new players (none of an erased name) and their first devices. The
    erased names are read again after the insert, which waited for any deletion in flight
    whose old row held a name's key (READ COMMITTED: the next statement sees it
    committed): a player made of a name erased meanwhile is deleted again and refused."""
    rows = [tuple(p[:4]) for _, p in players]  # rows come back as (id, name_key, token_hash)
    made = {tuple(r[1:]): r[0] for r in await _insert(conn, _INSERT_PLAYERS, rows)}
    keys = [p.name_key for _, p in players]
    erased = {r[0] for r in await conn.exec_driver_sql(_ERASED, (keys,))}
    lost, kept = [], []
    for i, p in players:
        new_id = made.pop((p.name_key, p.token_hash), None)
        if p.name_key in erased:
            outcomes[i] = NameErased(f"the name {p.name!r} was a deleted account's")
            if new_id is not None:
                lost.append(new_id)
        elif new_id is None:
            outcomes[i] = Conflict(_name_taken(p))
        else:
            kept.append((i, new_id, p))
    if lost:
        await conn.exec_driver_sql(_DELETE_PLAYERS, (lost,))
    if kept:
        devices = [(new_id, p.token_hash, p.label, p.created_at) for _, new_id, p in kept]
        device_of = {r[1]: r[0] for r in await _insert(conn, _INSERT_DEVICES, devices)}
        for i, new_id, _ in kept:
            outcomes[i] = NewPlayer(new_id, device_of[new_id])


def _name_taken(job: PlayerJob) -> str:
    return f"the name {job.name!r} or its token is taken"


def _entry_taken(job: EntryJob) -> str:
    return f"player {job.player_id} has an entry in tournament {job.tournament_id}"


async def _insert(conn: AsyncConnection, sql: str, rows: list[tuple[Any, ...]]) -> Iterable[Any]:
    """One INSERT ... SELECT FROM unnest() of the rows, passed as one array per column;
    the rows it returns."""
    columns = tuple(zip(*rows, strict=True))
    return (await conn.exec_driver_sql(sql, columns)).all()


async def _write_actions(
    conn: AsyncConnection,
    actions: list[tuple[int, ActionJob]],
    careful: bool,
    outcomes: list[object],
) -> list[tuple[int, ActionJob]]:
    """Insert the actions and update their entries; the actions written."""
    rows = [(a.entry_id, a.seq, a.at_ms, a.action_json) for _, a in actions]
    if careful:
        stored = set(map(tuple, await _insert(conn, _INSERT_NEW_ACTIONS, rows)))
        kept = []
        for i, a in actions:
            key = (a.entry_id, a.seq)
            if key in stored:
                stored.discard(key)
                kept.append((i, a))
            else:
                outcomes[i] = DuplicateAction(f"entry {a.entry_id} already has seq {a.seq}")
        actions = kept
        if not actions:
            return actions
    else:
        await conn.exec_driver_sql(_INSERT_ACTION, rows)
    updates = [(*summary_columns(a.summary), a.entry_id) for _, a in actions]
    await conn.exec_driver_sql(_UPDATE_ENTRY, updates)
    return actions
