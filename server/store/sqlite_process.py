"""The SQLite writer process: commits batches of hot-path writes, one transaction each.

Run as `python -m server.store.sqlite_process DATABASE_PATH` by `SqliteWriter`, which
talks to it over its standard input and output in frames (a 4-byte big-endian length,
then orjson). A request frame is a list of jobs; the reply frame holds one outcome per
job, written only after the transaction is committed (synchronous=FULL: fsynced).

Jobs (lists: the typed jobs of writer.py as `sqlite_writer.wire` lays them out, the
summary as its columns, `rows.summary_columns`):
  ["action", tournament_id, entry_id, seq, at_ms, action_json,
             status, progress, resets, score, time_ms, entry_seq, log_hash]  -> null
  ["player", name, name_key, token_hash, created_at, label]
             -> [player id, device id] (its first device, kind `token`: PROTOCOL.md
             "Accounts"), unless name_key is an erased name's
  ["entry", tournament_id, player_id, started_at, deadline,
            status, progress, resets, score, time_ms, seq, log_hash] -> the new row id
An action's log_hash is a checkpoint's head (stored with log_seq = entry_seq) or '' (the
row keeps its cached head and log_seq); a new entry's is stored with log_seq = seq.
Times are the text SQLAlchemy stores. A job that fails alone gets [kind, message] with
kind "duplicate" (the entry has that seq), "closed" (its tournament is closed),
"conflict" (a unique name or entry), "erased" (a deleted account's name: read inside the
write transaction, which no deletion commits into) or "error" (the whole batch failed).

Its own process, so that the database work never contends with the event loop for the
interpreter lock. It ignores SIGINT and SIGTERM: it stops when its input closes (the
server stopping, or dying), after finishing the batch in hand.
"""

from __future__ import annotations

import contextlib
import signal
import sqlite3
import struct
import sys
from typing import Any, BinaryIO

import orjson

PRAGMAS = (
    "journal_mode=WAL",
    "busy_timeout=30000",
    "foreign_keys=ON",
    "synchronous=FULL",
    "temp_store=MEMORY",  # savepoint and statement journals: no temporary file per commit
)
HEADER = struct.Struct(">I")
INSERT_ACTION = "INSERT INTO actions (entry_id, seq, at_ms, action) VALUES (?, ?, ?, ?)"
UPDATE_ENTRY = (  # a log_hash of '' (not a checkpoint) keeps the row's cached head
    "UPDATE entries SET status = ?1, progress = ?2, resets = ?3, score = ?4, time_ms = ?5,"
    " seq = ?6, log_hash = CASE ?7 WHEN '' THEN log_hash ELSE ?7 END,"
    " log_seq = CASE ?7 WHEN '' THEN log_seq ELSE ?6 END WHERE id = ?8"
)
INSERT_PLAYER = (
    "INSERT INTO players (name, name_key, token_hash, admin, created_at) VALUES (?, ?, ?, 0, ?)"
)
ERASED = "SELECT 1 FROM erased_names WHERE name_key = ?"
INSERT_DEVICE = (  # a new player's first device: its token's
    "INSERT INTO devices (player_id, token_hash, kind, label, created_at, last_seen_at)"
    " VALUES (?1, ?2, 'token', ?3, ?4, ?4)"
)
INSERT_ENTRY = (  # its log_hash is the head after its seq (0: the chain's start)
    "INSERT INTO entries (tournament_id, player_id, started_at, deadline, status, progress,"
    " resets, score, time_ms, seq, log_hash, club_id, log_seq)"
    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?10)"
)
Outcome = None | int | list[int] | list[str]


def connect(path: str) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None)
    for pragma in PRAGMAS:
        conn.execute(f"PRAGMA {pragma}")
    return conn


def commit(conn: sqlite3.Connection, jobs: list[list[Any]]) -> list[Outcome]:
    """Write the jobs in one transaction and commit; each job's outcome."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        outcomes = _write(conn, jobs)
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    return outcomes


def _write(conn: sqlite3.Connection, jobs: list[list[Any]]) -> list[Outcome]:
    outcomes: list[Outcome] = [None] * len(jobs)
    actions: list[tuple[int, list[Any]]] = []
    closed = _closed(conn, {job[1] for job in jobs if job[0] in ("action", "entry")})
    for i, job in enumerate(jobs):
        kind = job[0]
        if kind in ("action", "entry") and job[1] in closed:
            outcomes[i] = ["closed", f"tournament {job[1]} is closed"]
            continue
        if kind == "action":
            actions.append((i, job))
            continue
        try:
            if kind == "player":
                outcomes[i] = _insert_player(conn, job)
            else:
                outcomes[i] = conn.execute(INSERT_ENTRY, job[1:]).lastrowid
        except sqlite3.IntegrityError as exc:
            outcomes[i] = ["conflict", str(exc)]
    if actions:
        kept = _insert_actions(conn, actions, outcomes)
        conn.executemany(UPDATE_ENTRY, [(*job[6:13], job[2]) for _, job in kept])
    return outcomes


def _insert_player(conn: sqlite3.Connection, job: list[Any]) -> list[int] | list[str]:
    """[the new player's id, its first device's] (both or neither), or the "erased"
    refusal when its name's key is a deleted account's."""
    _, name, key, token_hash, created_at, label = job
    if conn.execute(ERASED, (key,)).fetchone() is not None:
        return ["erased", f"the name {name!r} was a deleted account's"]
    conn.execute("SAVEPOINT player")
    try:
        player_id = conn.execute(INSERT_PLAYER, (name, key, token_hash, created_at)).lastrowid
        assert player_id is not None
        device_id = conn.execute(
            INSERT_DEVICE, (player_id, token_hash, label, created_at)
        ).lastrowid
        assert device_id is not None
    except BaseException:
        conn.execute("ROLLBACK TO player")
        conn.execute("RELEASE player")
        raise
    conn.execute("RELEASE player")
    return [player_id, device_id]


def _closed(conn: sqlite3.Connection, ids: set[int]) -> set[int]:
    """Which of these tournaments are closed: read inside the write transaction (BEGIN
    IMMEDIATE), so no close commits before the batch does; their actions and entries
    are refused."""
    if not ids:
        return set()
    marks = ",".join("?" * len(ids))
    sql = f"SELECT id FROM tournaments WHERE status = 'closed' AND id IN ({marks})"
    return {row[0] for row in conn.execute(sql, sorted(ids))}


def _insert_actions(
    conn: sqlite3.Connection, actions: list[tuple[int, list[Any]]], outcomes: list[Outcome]
) -> list[tuple[int, list[Any]]]:
    """Insert the actions at once; if one is a duplicate (entry, seq), one by one so that
    it alone fails. Returns the actions that were stored."""
    conn.execute("SAVEPOINT actions")
    try:
        conn.executemany(INSERT_ACTION, [job[2:6] for _, job in actions])
        conn.execute("RELEASE actions")
        return actions
    except sqlite3.IntegrityError:
        conn.execute("ROLLBACK TO actions")
        conn.execute("RELEASE actions")
    stored = []
    for i, job in actions:
        try:
            conn.execute(INSERT_ACTION, job[2:6])
            stored.append((i, job))
        except sqlite3.IntegrityError:
            outcomes[i] = ["duplicate", f"entry {job[2]} already has seq {job[3]}"]
    return stored


def read_frame(stream: BinaryIO) -> Any | None:
    """The next frame's value, or None at the end of the stream."""
    header = stream.read(HEADER.size)
    if len(header) < HEADER.size:
        return None
    return orjson.loads(stream.read(HEADER.unpack(header)[0]))


def frame(value: Any) -> bytes:
    body = orjson.dumps(value)
    return HEADER.pack(len(body)) + body


def serve(path: str, requests: BinaryIO, replies: BinaryIO) -> None:
    """Commit each request's jobs and answer with their outcomes, until the input ends."""
    conn: sqlite3.Connection | None = None
    while (jobs := read_frame(requests)) is not None:
        try:
            if conn is None:
                conn = connect(path)
            outcomes = commit(conn, jobs)
        except Exception as exc:  # the database is unusable: every job of the batch fails
            outcomes = [["error", f"{type(exc).__name__}: {exc}"]] * len(jobs)
            if conn is not None:
                conn.close()
                conn = None
        replies.write(frame(outcomes))
        replies.flush()
    if conn is not None:
        conn.close()


def main() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    with contextlib.suppress(BrokenPipeError):  # the server is gone
        serve(sys.argv[1], sys.stdin.buffer, sys.stdout.buffer)


if __name__ == "__main__":
    main()
