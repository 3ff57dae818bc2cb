"""Alembic builds the schema the models describe, up and down, on both backends."""

from __future__ import annotations

import asyncio

from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import inspect

from server.store import db
from server.store.models import Base

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
