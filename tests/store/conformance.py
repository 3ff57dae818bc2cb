"""Both writers are `Writer`s, statically: mypy --strict checks these typed assignments
(tests/store/test_writer.py runs it). Not a test module: it is only type-checked."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncEngine

from server.store.pg_writer import PgWriter
from server.store.sqlite_writer import SqliteWriter
from server.store.writer import Writer


def both_writers(engine: AsyncEngine) -> tuple[Writer, Writer]:
    on_sqlite: Writer = SqliteWriter("unused.db")
    on_postgresql: Writer = PgWriter(engine)
    return on_sqlite, on_postgresql
