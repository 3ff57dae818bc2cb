"""Alembic builds the schema the models describe, up and down, on both backends, and
an upgrade keeps the rows written before it."""

from __future__ import annotations

import asyncio

from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import inspect

from server.domain.model import Status, Summary, TournamentStatus
from server.store import db
from server.store.models import Base
from server.store.repository import Store

TABLES = {"players", "tournaments", "tournament_secrets", "entries", "actions"}


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
            assert (entry.player_name, entry.status, entry.seq, entry.time_ms) == (
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


def entry_summary(seq: int) -> Summary:
    return Summary(Status.PLAYING, 4, 0, 4, 300, seq, "f" * 64)
