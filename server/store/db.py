"""Engines for the two backends, and schema migration to head."""

from __future__ import annotations

import os
from contextvars import ContextVar
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from server.store.sqlite_process import PRAGMAS

DEFAULT_URL = "sqlite+aiosqlite:///samedeal.db"
MIGRATIONS = Path(__file__).resolve().parents[2] / "migrations"
# PostgreSQL behind a network that can go silent (a partition, a blackholed route): asyncpg
# waits for a reply without limit by default, and the kernel's keepalive takes hours, so
# one statement on a dead connection (the pool's pre-ping included) held the group-commit
# writer, and every act queued behind it, /healthz and a graceful stop, until the network
# came back (tests/e2e/test_faults.py, the blackholed cut).
CONNECT_TIMEOUT_S = 5.0  # to open a connection (asyncpg's default: 60 s)
COMMAND_TIMEOUT_S = 5.0  # for one statement; the connection is then dropped, not reused
# The server ends a session left idle inside a transaction this long: a node cut off in
# the middle of a batch would otherwise keep its rows locked (another node's write of the
# same entry waits) until PostgreSQL notices the connection is gone.
IDLE_IN_TRANSACTION_MS = 10_000
_migrating: ContextVar[bool] = ContextVar("_migrating", default=False)  # no limits then


def database_url(explicit: str | None = None) -> str:
    """--database-url, else SAMEDEAL_DATABASE_URL, else the SQLite default."""
    return explicit or os.environ.get("SAMEDEAL_DATABASE_URL") or DEFAULT_URL


def make_engine(url: str) -> AsyncEngine:
    """An async engine; SQLite gets WAL, a busy timeout, foreign keys and full sync."""
    if url.startswith("sqlite"):
        engine = create_async_engine(url, connect_args={"timeout": 30})
        event.listen(engine.sync_engine, "connect", _sqlite_pragmas)
        return engine
    connect_args: dict[str, Any] = {"timeout": CONNECT_TIMEOUT_S}
    if not _migrating.get():  # a migration's statements may take long
        connect_args["command_timeout"] = COMMAND_TIMEOUT_S
        connect_args["server_settings"] = {
            "idle_in_transaction_session_timeout": str(IDLE_IN_TRANSACTION_MS)
        }
    return create_async_engine(
        url, pool_size=10, max_overflow=10, pool_pre_ping=True, connect_args=connect_args
    )


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
    token = _migrating.set(True)  # migrations/env.py makes its engine with make_engine
    try:
        command.upgrade(alembic_config(url), revision)
    finally:
        _migrating.reset(token)


def downgrade(url: str, revision: str = "base") -> None:
    token = _migrating.set(True)
    try:
        command.downgrade(alembic_config(url), revision)
    finally:
        _migrating.reset(token)
