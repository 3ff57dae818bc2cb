"""entries.log_hash: the head of the entry's hash-chained action log

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-07

Rows written before this revision get '' ("not known"): the server recomputes the head
from the entry's action log when it loads the game (RECORD.md "Receipts").
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("entries", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("log_hash", sa.String(length=64), server_default="", nullable=False)
        )


def downgrade() -> None:
    # Never by copying the table, which SQLite's foreign keys forbid once actions refer to
    # entries: SQLite (3.35 and later) drops the column in place, as PostgreSQL does.
    with op.batch_alter_table("entries", schema=None, recreate="never") as batch_op:
        batch_op.drop_column("log_hash")
