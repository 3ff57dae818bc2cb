"""The group-commit writer for an engine's database (writer.py's `Writer`): apart from
the writers, which import writer.py, so that no import goes in a circle."""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy.ext.asyncio import AsyncEngine

from server.store.pg_writer import PgWriter
from server.store.sqlite_writer import SqliteWriter
from server.store.writer import Writer


def make_writer(engine: AsyncEngine, on_batch: Callable[[int], None] | None = None) -> Writer:
    """The group-commit writer for the engine's database: on SQLite a writer process on
    the same file, on PostgreSQL (asyncpg) a batching task on the engine."""
    dialect = engine.dialect
    if dialect.name == "sqlite":
        return SqliteWriter(engine.url.database or "", on_batch)
    if dialect.name == "postgresql" and dialect.driver == "asyncpg":
        return PgWriter(engine, on_batch)
    raise ValueError(f"no group-commit writer for {dialect.name}+{dialect.driver}")
