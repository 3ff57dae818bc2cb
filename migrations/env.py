"""Alembic environment: runs migrations on the async engine of the configured URL.

On PostgreSQL an upgrade (or downgrade) first takes a transaction-level advisory lock,
MIGRATION_LOCK, inside its one transaction (PostgreSQL's DDL is transactional): Alembic
itself takes none, so two nodes starting at once on a fresh database both found no
alembic_version and both created it, and the loser failed (a unique violation on
pg_type_typname_nsp_index) and its server did not start; at a later revision both would
apply the same step. With the lock the second waits until the first commits, then reads
the version the first wrote and has nothing left to do. The commit (or a rollback)
releases the lock. SQLite needs none: one node per file, its writes serialised by the file.
"""

from __future__ import annotations

import asyncio

from alembic import context
from sqlalchemy.engine import Connection

from server.store.db import make_engine
from server.store.models import Base

target_metadata = Base.metadata
# Beside the server's other advisory locks (server/store/pg_coordination.py LEADER_KEY = ...0001,
# server/competition/catalogue.py DEMO_LOCK = ...0002).
MIGRATION_LOCK = 0x5A3D_EA1_0003


def _run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    if connection.dialect.name == "sqlite":
        # a batch alteration copies a table and drops the old one, which foreign keys
        # would refuse; the pragma takes effect only outside a transaction
        connection.exec_driver_sql("PRAGMA foreign_keys=OFF")
    with context.begin_transaction():
        if connection.dialect.name == "postgresql":
            # before Alembic reads (or creates) alembic_version, in the same transaction
            connection.exec_driver_sql(f"SELECT pg_advisory_xact_lock({MIGRATION_LOCK})")
        context.run_migrations()


async def _online() -> None:
    engine = make_engine(context.config.get_main_option("sqlalchemy.url") or "")
    async with engine.connect() as conn:
        await conn.run_sync(_run)
        await conn.commit()
    await engine.dispose()


def main() -> None:
    connection = context.config.attributes.get("connection")
    if connection is not None:
        _run(connection)
    else:
        asyncio.run(_online())


main()
