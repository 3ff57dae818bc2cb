"""Engines for the two backends, and schema migration to head."""

from __future__ import annotations

import os
from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from server.store.sqlite_process import PRAGMAS

DEFAULT_URL = "sqlite+aiosqlite:///samedeal.db"
MIGRATIONS = Path(__file__).resolve().parents[2] / "migrations"


def database_url(explicit: str | None = None) -> str:
    """--database-url, else SAMEDEAL_DATABASE_URL, else the SQLite default."""
    return explicit or os.environ.get("SAMEDEAL_DATABASE_URL") or DEFAULT_URL


def make_engine(url: str) -> AsyncEngine:
    """An async engine; SQLite gets WAL, a busy timeout, foreign keys and full sync."""
    if url.startswith("sqlite"):
        engine = create_async_engine(url, connect_args={"timeout": 30})
        event.listen(engine.sync_engine, "connect", _sqlite_pragmas)
        return engine
    return create_async_engine(url, pool_size=10, max_overflow=10, pool_pre_ping=True)


def _sqlite_pragmas(dbapi_conn: object, _record: object) -> None:
    cur = dbapi_conn.cursor()  # type: ignore[attr-defined]
    for pragma in PRAGMAS:  # the writer process uses the same settings
        cur.execute(f"PRAGMA {pragma}")
    cur.close()


def alembic_config(url: str) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.set_main_option("sqlalchemy.url", url)
    return cfg


def migrate(url: str, revision: str = "head") -> None:
    """Upgrade the database at `url` to `revision` (blocking; call from a thread)."""
    command.upgrade(alembic_config(url), revision)


def downgrade(url: str, revision: str = "base") -> None:
    command.downgrade(alembic_config(url), revision)
