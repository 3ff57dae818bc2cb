"""The SQLite writer process's own logic (server/store/sqlite_process.py), in process: its
frames, and a batch of jobs (as `sqlite_writer.wire` lays them out) committed in one
transaction, each job's outcome its own: a new row's id, or why it alone failed
(duplicate, closed, conflict), or every job an error when the database is unusable."""

from __future__ import annotations

import asyncio
import io
import sqlite3
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from server.domain.model import canonical_json
from server.store import sqlite_process
from server.store.repository import Store
from server.store.sqlite_writer import wire
from server.store.writer import ActionJob, EntryJob, PlayerJob
from tests.support.store_records import NOW, new_tournament, playing

NAIVE = NOW.replace(tzinfo=None)


@pytest.fixture(scope="module")
def migrated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A migrated SQLite file with two tournaments (1 open, 2 closed), made once."""
    path = tmp_path_factory.mktemp("sqlite_process") / "base.db"

    async def make() -> None:
        store = await Store.open(f"sqlite+aiosqlite:///{path}")
        try:
            for name in ("Open", "Closed"):
                await store.create_tournament(new_tournament(name=name))
            await store.close_tournament(2, NOW)
        finally:
            await store.close()

    asyncio.run(make())
    return path


@pytest.fixture
def conn(migrated: Path, tmp_path: Path) -> Iterator[sqlite3.Connection]:
    copy = tmp_path / "w.db"
    copy.write_bytes(migrated.read_bytes())
    c = sqlite_process.connect(str(copy))
    yield c
    c.close()


def player(name: str, token: str) -> list[Any]:
    return wire(PlayerJob(name, name.lower(), token, NAIVE, "phone"))


def entry(tournament_id: int, player_id: int) -> list[Any]:
    return wire(EntryJob(tournament_id, player_id, NAIVE, NAIVE + timedelta(minutes=15), playing()))


def action(tournament_id: int, entry_id: int, seq: int) -> list[Any]:
    text = canonical_json({"n": seq})
    return wire(ActionJob(tournament_id, entry_id, seq, seq * 10, text, playing(seq, seq)))


def test_frames_round_trip_and_the_stream_ends_cleanly() -> None:
    stream = io.BytesIO(sqlite_process.frame([1, "two"]) + sqlite_process.frame(None))
    assert sqlite_process.read_frame(stream) == [1, "two"]
    assert sqlite_process.read_frame(stream) is None  # the value null
    assert sqlite_process.read_frame(stream) is None  # the end
    assert sqlite_process.read_frame(io.BytesIO(b"\x00\x00")) is None  # a cut header


def test_players_entries_and_actions_commit_as_one_batch(conn: sqlite3.Connection) -> None:
    made = sqlite_process.commit(conn, [player("Ana", "h-ana"), player("Bob", "h-bob")])
    (ana, ana_device), (bob, bob_device) = made  # each player's id and its first device's
    devices = conn.execute("SELECT id, player_id, kind, label FROM devices ORDER BY id").fetchall()
    assert devices == [(ana_device, ana, "token", "phone"), (bob_device, bob, "token", "phone")]
    (e,) = sqlite_process.commit(conn, [entry(1, ana)])
    assert isinstance(e, int)
    outcomes = sqlite_process.commit(conn, [action(1, e, 1), action(1, e, 2)])
    assert outcomes == [None, None]
    assert conn.execute("SELECT seq, progress FROM entries WHERE id = ?", (e,)).fetchone() == (2, 2)
    logged = conn.execute("SELECT seq, at_ms FROM actions WHERE entry_id = ?", (e,)).fetchall()
    assert logged == [(1, 10), (2, 20)]


def test_a_refused_job_fails_alone(conn: sqlite3.Connection) -> None:
    ((ana, _),) = sqlite_process.commit(conn, [player("Ana", "h-ana")])
    (e,) = sqlite_process.commit(conn, [entry(1, ana)])
    sqlite_process.commit(conn, [action(1, e, 1)])
    outcomes = sqlite_process.commit(
        conn,
        [
            action(1, e, 1),  # seq 1 again
            action(1, e, 2),
            action(2, e, 3),  # tournament 2 is closed
            entry(2, ana),
            player("ANA", "h-other"),  # the name's key is taken
            player("Cy", "h-cy"),
        ],
    )
    assert outcomes[0] == ["duplicate", f"entry {e} already has seq 1"]
    assert outcomes[1] is None
    assert outcomes[2] == ["closed", "tournament 2 is closed"] == outcomes[3]
    assert isinstance(outcomes[4], list) and outcomes[4][0] == "conflict"
    cy, cy_device = outcomes[5]
    assert isinstance(cy, int) and isinstance(cy_device, int)
    assert conn.execute("SELECT count(*) FROM devices").fetchone() == (2,)  # none for ANA
    assert conn.execute("SELECT seq FROM entries WHERE id = ?", (e,)).fetchone() == (2,)


def test_an_erased_name_is_refused_in_the_insert_s_transaction(conn: sqlite3.Connection) -> None:
    ((gone, _),) = sqlite_process.commit(conn, [player("deleted-1", "h-gone")])
    conn.execute(
        "INSERT INTO erased_names (name_key, player_id, at) VALUES ('ana', ?, ?)", (gone, NAIVE)
    )
    (refused,) = sqlite_process.commit(conn, [player("Ana", "h-ana")])
    assert refused == ["erased", "the name 'Ana' was a deleted account's"]
    assert conn.execute("SELECT count(*) FROM players").fetchone() == (1,)  # deleted-1's only
    assert conn.execute("SELECT count(*) FROM devices").fetchone() == (1,)


def test_serve_answers_each_request_and_every_job_fails_on_an_unusable_database(
    migrated: Path, tmp_path: Path
) -> None:
    requests = io.BytesIO(sqlite_process.frame([player("Ana", "h-ana")]) + sqlite_process.frame([]))
    replies = io.BytesIO()
    copy = tmp_path / "s.db"
    copy.write_bytes(migrated.read_bytes())
    sqlite_process.serve(str(copy), requests, replies)
    replies.seek(0)
    ((player_id, device_id),) = sqlite_process.read_frame(replies)
    assert isinstance(player_id, int) and isinstance(device_id, int)
    assert sqlite_process.read_frame(replies) == []
    two_jobs = sqlite_process.frame([player("Ana", "h"), player("Bob", "h2")])
    replies = io.BytesIO()
    sqlite_process.serve(str(tmp_path), io.BytesIO(two_jobs), replies)  # a directory
    replies.seek(0)
    failed = sqlite_process.read_frame(replies)
    assert len(failed) == 2 and all(kind == "error" for kind, _ in failed)
