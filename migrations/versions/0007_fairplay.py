"""Fair play: disqualifications (one per entry: reason, at, whether after the close)

Revision ID: 0007
Revises: 0004
Create Date: 2026-12-01

An entry disqualified by the operator keeps its row and its actions; this table says
why and when (docs/COMPETITION.md "Fair play"). A disqualification made after the
tournament closed (`after_close`) is an amendment of its bundle.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "disqualifications",
        sa.Column("entry_id", sa.Integer(), nullable=False),
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("at", sa.DateTime(), nullable=False),
        sa.Column("after_close", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(
            ["entry_id"], ["entries.id"], name=op.f("fk_disqualifications_entry_id_entries")
        ),
        sa.ForeignKeyConstraint(
            ["tournament_id"],
            ["tournaments.id"],
            name=op.f("fk_disqualifications_tournament_id_tournaments"),
        ),
        sa.PrimaryKeyConstraint("entry_id", name=op.f("pk_disqualifications")),
    )
    op.create_index(
        op.f("ix_disqualifications_tournament_id"),
        "disqualifications",
        ["tournament_id"],
        unique=False,
    )


def downgrade() -> None:
    op.drop_index(op.f("ix_disqualifications_tournament_id"), table_name="disqualifications")
    op.drop_table("disqualifications")
