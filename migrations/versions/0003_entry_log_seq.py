"""entries.log_seq: the seq after which the cached entries.log_hash is the chain head

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-30

The row caches its chain head only at checkpoints from now on (every CHECKPOINT-th action,
the join, the end of the game: server/competition/live_game.py), no longer after every action,
so it says which seq its head is for. Until this revision the head was written with every
action: a row that has one gets log_seq = seq; a row without one ('', written before
receipts) keeps 0 and its head is still computed from the whole log.

Nodes of the previous version must not write while this runs or after it: they would
move log_hash on without log_seq.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("entries", schema=None) as batch_op:
        batch_op.add_column(sa.Column("log_seq", sa.Integer(), server_default="0", nullable=False))
    op.execute("UPDATE entries SET log_seq = seq WHERE log_hash != ''")


def downgrade() -> None:
    # At 0002 a row's log_hash is read as the head after `seq` actions: a head cached at
    # an older checkpoint would be taken for the current one, so it is forgotten ('') and
    # the previous version computes it again from the log.
    op.execute("UPDATE entries SET log_hash = '' WHERE log_seq != seq")
    # Never by copying the table, which SQLite's foreign keys forbid once actions refer to
    # entries: SQLite (3.35 and later) drops the column in place, as PostgreSQL does.
    with op.batch_alter_table("entries", schema=None, recreate="never") as batch_op:
        batch_op.drop_column("log_seq")
