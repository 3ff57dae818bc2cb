"""Alembic builds the schema the models describe, up and down, on both backends, an
upgrade keeps the rows written before it, and two upgrades at once on PostgreSQL (two
nodes starting together) take turns."""

from __future__ import annotations

import asyncio
import re
import subprocess
import sys
import time
from pathlib import Path

from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import inspect

from server.domain.model import Figures, Status, Summary, TournamentStatus
from server.store import db
from server.store.models import Base
from server.store.repository import Store

TABLES = {"players", "tournaments", "tournament_secrets", "entries", "actions"}
TABLES |= {"ratings", "placings"}  # 0004
TABLES |= {"disqualifications"}  # 0007 (fair play)
TABLES |= {"schedules"}  # 0006
TABLES |= {"pars"}  # 0008 (par)
TABLES |= {"devices"}  # 0010 (accounts)
TABLES |= {"link_codes", "link_guesses"}  # 0011
TABLES |= {"erased_names", "erasures"}  # 0012
TABLES |= {"passkey_users", "passkeys", "passkey_challenges"}  # 0013
TABLES |= {"clubs", "club_members", "code_guesses"}  # 0014


async def _tables_and_diff(url: str) -> tuple[set[str], list[object]]:
    engine = db.make_engine(url)

    def probe(conn):  # type: ignore[no-untyped-def]
        tables = set(inspect(conn).get_table_names()) - {"alembic_version"}
        ctx = MigrationContext.configure(conn, opts={"compare_type": True})
        return tables, compare_metadata(ctx, Base.metadata)

    try:
        async with engine.connect() as conn:
            return await conn.run_sync(probe)
    finally:
        await engine.dispose()


def test_upgrade_downgrade_upgrade_and_models_match(db_url: str) -> None:
    db.migrate(db_url)
    tables, diff = asyncio.run(_tables_and_diff(db_url))
    assert tables == TABLES
    assert diff == [], diff
    db.downgrade(db_url, "base")
    tables, _ = asyncio.run(_tables_and_diff(db_url))
    assert tables == set()
    db.migrate(db_url)
    tables, diff = asyncio.run(_tables_and_diff(db_url))
    assert tables == TABLES and diff == []


def test_url_choice(monkeypatch) -> None:
    monkeypatch.delenv("SAMEDEAL_DATABASE_URL", raising=False)
    assert db.database_url() == "sqlite+aiosqlite:///samedeal.db"
    monkeypatch.setenv("SAMEDEAL_DATABASE_URL", "postgresql+asyncpg://x/y")
    assert db.database_url() == "postgresql+asyncpg://x/y"
    assert db.database_url("sqlite+aiosqlite:///other.db") == "sqlite+aiosqlite:///other.db"


ROWS_AT_0001 = (
    "INSERT INTO players (id, name, name_key, token_hash, admin, created_at)"
    " VALUES (1, 'Old', 'old', 'h-old', false, '2026-11-30 18:00:00')",
    "INSERT INTO tournaments (id, name, game, options, commitment, starts_at, ends_at,"
    " join_until, time_limit_s, status, deal_attempt, guaranteed, solution, created_at,"
    " closed_at) VALUES (1, 'Before', 'gaps', '{\"redeals\": 2}', 'cc', '2026-11-30 18:00:00',"
    " '2026-11-30 19:00:00', '2026-11-30 19:00:00', 900, 'open', 0, false, NULL,"
    " '2026-11-30 17:00:00', NULL)",
    "INSERT INTO tournament_secrets (tournament_id, seed) VALUES (1, '5e')",
    "INSERT INTO entries (id, tournament_id, player_id, started_at, deadline, status,"
    " progress, resets, score, time_ms, seq) VALUES (1, 1, 1, '2026-11-30 18:01:00',"
    " '2026-11-30 18:16:00', 'playing', 3, 0, 3, 250, 2)",
    "INSERT INTO actions (id, entry_id, seq, at_ms, action) VALUES"
    " (1, 1, 1, 100, '{\"n\":1}'), (2, 1, 2, 250, '{\"n\":2}')",
)


async def _run_sql(url: str, *statements: str) -> list[tuple[object, ...]]:
    """Run the statements in one transaction; the last one's rows, if it returns any."""
    engine = db.make_engine(url)
    try:
        async with engine.begin() as conn:
            result = None
            for sql in statements:
                result = await conn.exec_driver_sql(sql)
            return [tuple(r) for r in result] if result is not None and result.returns_rows else []
    finally:
        await engine.dispose()


def test_0002_adds_log_hash_and_keeps_the_rows(db_url: str) -> None:
    db.migrate(db_url, "0001")
    asyncio.run(_run_sql(db_url, *ROWS_AT_0001))

    db.migrate(db_url)  # to head
    assert asyncio.run(_run_sql(db_url, "SELECT id, seq, log_hash FROM entries")) == [(1, 2, "")]

    async def through_the_store() -> None:
        store = await Store.open(db_url, migrate=False)
        try:
            entry = await store.entry(1, 1)
            assert entry is not None
            assert (entry.player_name, entry.figures.status, entry.seq, entry.figures.time_ms) == (
                "Old",
                Status.PLAYING,
                2,
                250,
            )
            assert entry.log_hash == ""  # not known: the server recomputes it from the log
            assert [(a.seq, a.action) for a in await store.actions(1)] == [
                (1, {"n": 1}),
                (2, {"n": 2}),
            ]
            t = await store.tournament(1)
            assert t is not None and t.status is TournamentStatus.OPEN and t.entrants == 1
            assert await store.secret_seed(1) == "5e"
            # a row written now holds its hash
            await store.append(1, 1, 3, 300, '{"n":3}', entry_summary(entry.seq + 1))
            assert (await store.entry(1, 1)).log_hash == "f" * 64
        finally:
            await store.close()

    asyncio.run(through_the_store())

    db.downgrade(db_url, "0001")  # and back, keeping the rows
    assert asyncio.run(_run_sql(db_url, "SELECT id, seq FROM entries")) == [(1, 3)]
    assert asyncio.run(_run_sql(db_url, "SELECT count(*) FROM actions")) == [(3,)]
    db.migrate(db_url)
    assert asyncio.run(_run_sql(db_url, "SELECT log_hash FROM entries")) == [("",)]


def entry_summary(seq: int, log_hash: str = "f" * 64) -> Summary:
    return Summary(Figures(Status.PLAYING, 4, 0, 4, 300), seq, log_hash)


ROWS_AT_0002 = (  # a second entry, whose head was written with its last action
    "INSERT INTO players (id, name, name_key, token_hash, admin, created_at)"
    " VALUES (2, 'Later', 'later', 'h-later', false, '2026-11-30 18:00:00')",
    "INSERT INTO entries (id, tournament_id, player_id, started_at, deadline, status,"
    " progress, resets, score, time_ms, seq, log_hash) VALUES (2, 1, 2, '2026-11-30 18:02:00',"
    " '2026-11-30 18:17:00', 'playing', 1, 0, 1, 90, 1, '" + "ab" * 32 + "')",
    "INSERT INTO actions (id, entry_id, seq, at_ms, action) VALUES (3, 2, 1, 90, '{\"n\":1}')",
)


def test_0003_says_which_seq_the_cached_head_is_for(db_url: str) -> None:
    """Heads written before 0003 were the head after `seq`; a row without one keeps 0.
    Back at 0002 (which reads a head as the one after `seq`), a head cached at an older
    checkpoint is forgotten, to be computed again from the log."""
    db.migrate(db_url, "0002")
    asyncio.run(_run_sql(db_url, *ROWS_AT_0001, *ROWS_AT_0002))
    if db_url.startswith("postgresql"):  # rows inserted with their ids: move the sequence on
        asyncio.run(_run_sql(db_url, "SELECT setval(pg_get_serial_sequence('actions', 'id'), 3)"))

    db.migrate(db_url)  # to head
    got = asyncio.run(
        _run_sql(db_url, "SELECT id, seq, log_seq, log_hash FROM entries ORDER BY id")
    )
    assert got == [(1, 2, 0, ""), (2, 1, 1, "ab" * 32)]

    async def through_the_store() -> None:
        store = await Store.open(db_url, migrate=False)
        try:
            later = await store.entry(1, 2)
            assert later is not None and (later.log_seq, later.log_hash) == (1, "ab" * 32)
            # entry 1 gets a checkpoint, entry 2 an action without one
            await store.append(1, 1, 3, 300, '{"n":3}', entry_summary(3, "cd" * 32))
            await store.append(1, 2, 2, 200, '{"n":2}', entry_summary(2, ""))
        finally:
            await store.close()

    asyncio.run(through_the_store())
    got = asyncio.run(
        _run_sql(db_url, "SELECT id, seq, log_seq, log_hash FROM entries ORDER BY id")
    )
    assert got == [(1, 3, 3, "cd" * 32), (2, 2, 1, "ab" * 32)]

    db.downgrade(db_url, "0002")
    got = asyncio.run(_run_sql(db_url, "SELECT id, seq, log_hash FROM entries ORDER BY id"))
    assert got == [(1, 3, "cd" * 32), (2, 2, "")]  # the older head is forgotten
    db.migrate(db_url)
    got = asyncio.run(_run_sql(db_url, "SELECT id, log_seq, log_hash FROM entries ORDER BY id"))
    assert got == [(1, 3, "cd" * 32), (2, 0, "")]


# -- several nodes migrating at once ------------------------------------------------
def _migration_lock() -> int:
    """MIGRATION_LOCK as migrations/env.py defines it (env.py runs when imported)."""
    found = re.search(
        r"^MIGRATION_LOCK = (0x[0-9A-Fa-f_]+)$",
        (Path(db.MIGRATIONS) / "env.py").read_text(encoding="utf-8"),
        re.M,
    )
    assert found is not None, "migrations/env.py defines MIGRATION_LOCK"
    return int(found.group(1), 0)


def test_two_upgrades_at_once_on_a_fresh_postgresql_database(pg_url: str) -> None:
    """Two `samedeal-server migrate` processes (as two nodes starting together) on an
    empty database both succeed and leave one schema at head. To make them overlap for
    certain, the test holds the migrations' advisory lock until both are waiting on it,
    then lets go: each must take the lock before it reads alembic_version (without the
    lock, the loser of the race failed on a duplicate alembic_version)."""
    import asyncpg

    dsn = pg_url.replace("postgresql+asyncpg://", "postgresql://")
    database = dsn.rsplit("/", 1)[1]
    lock = _migration_lock()

    async def run() -> list[tuple[int, str]]:
        holder = await asyncpg.connect(dsn)
        procs: list[subprocess.Popen[str]] = []
        try:
            await holder.execute("SELECT pg_advisory_lock($1)", lock)
            procs = [
                subprocess.Popen(
                    [sys.executable, "-m", "server", "--database-url", pg_url, "migrate"],
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    text=True,
                )
                for _ in range(2)
            ]
            deadline = time.monotonic() + 60
            while True:
                waiting = await holder.fetchval(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = $1"
                    " AND wait_event_type = 'Lock' AND wait_event = 'advisory'",
                    database,
                )
                if waiting == 2:
                    break
                exited = [p for p in procs if p.poll() is not None]
                assert not exited, [p.communicate()[1][-2000:] for p in exited]
                assert time.monotonic() < deadline, f"{waiting} of 2 upgrades wait for the lock"
                await asyncio.sleep(0.05)
            await holder.execute("SELECT pg_advisory_unlock($1)", lock)
            outcomes = []
            for p in procs:
                _, err = await asyncio.to_thread(p.communicate, timeout=120)
                outcomes.append((p.returncode, err[-2000:]))
            return outcomes
        finally:
            for p in procs:
                if p.poll() is None:
                    p.kill()
                    p.wait()
            await holder.close()

    outcomes = asyncio.run(run())
    assert [code for code, _ in outcomes] == [0, 0], outcomes
    tables, diff = asyncio.run(_tables_and_diff(pg_url))
    assert tables == TABLES and diff == [], diff
    head = ScriptDirectory.from_config(db.alembic_config(pg_url)).get_current_head()
    assert asyncio.run(_run_sql(pg_url, "SELECT version_num FROM alembic_version")) == [(head,)]


def test_0010_makes_every_token_a_device_and_the_token_still_signs_in(db_url: str) -> None:
    """A token issued before v1.4 is a device of kind `token`, label null (PROTOCOL.md
    "Accounts"), created and last seen when its player was."""
    db.migrate(db_url, "0009")
    asyncio.run(_run_sql(db_url, *ROWS_AT_0001))
    db.migrate(db_url)
    got = asyncio.run(
        _run_sql(db_url, "SELECT player_id, token_hash, kind, label, revoked_at FROM devices")
    )
    assert got == [(1, "h-old", "token", None, None)]

    async def through_the_store() -> None:
        from server.store import devices

        store = await Store.open(db_url, migrate=False)
        try:
            found = await devices.signed_in(store, "h-old")
            assert found is not None and found[0].name == "Old"
            device = found[1]
            assert device.created_at == device.last_seen_at
            assert device.created_at.isoformat().startswith("2026-11-30T18:00:00")
        finally:
            await store.close()

    asyncio.run(through_the_store())
    db.downgrade(db_url, "0009")
    assert "devices" not in asyncio.run(_tables_and_diff(db_url))[0]
