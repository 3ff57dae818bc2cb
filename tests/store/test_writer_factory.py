"""The writer for an engine (writer_factory.py): SQLite's writer process on the same file,
PostgreSQL's batching task, and a clear refusal for any other database. Nothing starts:
a writer is only made here."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy.ext.asyncio import create_async_engine

from server.store.pg_writer import PgWriter
from server.store.sqlite_writer import SqliteWriter
from server.store.writer_factory import make_writer


async def test_each_database_gets_its_writer(tmp_path: Path) -> None:
    sqlite = create_async_engine(f"sqlite+aiosqlite:///{tmp_path}/w.db")
    pg = create_async_engine("postgresql+asyncpg://postgres@127.0.0.1:1/none")
    try:
        assert isinstance(make_writer(sqlite), SqliteWriter)
        assert isinstance(make_writer(pg), PgWriter)
    finally:
        await sqlite.dispose()
        await pg.dispose()


async def test_another_database_is_refused_by_name() -> None:
    engine = create_async_engine("sqlite+aiosqlite://")
    engine.dialect.name = "mysql"  # as any other dialect would say
    with pytest.raises(ValueError, match="no group-commit writer for mysql"):
        make_writer(engine)
    await engine.dispose()
