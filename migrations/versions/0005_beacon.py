"""tournaments.beacon and tournaments.void: a public randomness beacon (contract v1.3)

Revision ID: 0005
Revises: 0003 (the lead re-chains it at merge)
Create Date: 2026-12-01

`beacon` holds the drand round a tournament takes its deal from ({"network",
"chain_hash","round"}, plus the round's signature once verified), null for a tournament
without one; `void` marks a tournament closed for want of its round. Existing rows get
null and false: nothing about them changes.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # In place (SQLite's ADD COLUMN): copying the table would break the entries' foreign keys.
    with op.batch_alter_table("tournaments", schema=None, recreate="never") as batch_op:
        batch_op.add_column(sa.Column("beacon", sa.JSON(), nullable=True))
        batch_op.add_column(
            sa.Column("void", sa.Boolean(), server_default=sa.false(), nullable=False)
        )


def downgrade() -> None:
    with op.batch_alter_table("tournaments", schema=None, recreate="never") as batch_op:
        batch_op.drop_column("void")
        batch_op.drop_column("beacon")
