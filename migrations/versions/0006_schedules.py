"""Series: schedules, and tournaments' schedule, occurrence and entry conditions

Revision ID: 0006
Revises: 0004
Create Date: 2026-12-01

- schedules: an operator's recurring tournament (docs/COMPETITION.md "Series");
- tournaments.schedule_id / occurrence: which occurrence of which schedule a tournament
  is (both null for one made by hand); the unique index on the pair is the fence that
  makes each occurrence exist once however many nodes create it at the same moment;
- tournaments.conditions: the entry conditions (JSON, null for none).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "schedules",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("game", sa.String(length=16), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("first_starts_at", sa.DateTime(), nullable=False),
        sa.Column("every_s", sa.Integer(), nullable=False),
        sa.Column("duration_s", sa.Integer(), nullable=False),
        sa.Column("time_limit_s", sa.Integer(), nullable=True),
        sa.Column("join_for_s", sa.Integer(), nullable=True),
        sa.Column("conditions", sa.JSON(), nullable=True),
        sa.Column("rated", sa.Boolean(), nullable=False),
        sa.Column("beacon", sa.JSON(), nullable=True),
        sa.Column("cancelled", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_schedules")),
    )
    # in place, never by copying (SQLite's foreign keys forbid it once entries refer)
    with op.batch_alter_table("tournaments", schema=None, recreate="never") as batch_op:
        batch_op.add_column(sa.Column("schedule_id", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("occurrence", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("conditions", sa.JSON(), nullable=True))
    op.create_index(
        "uq_tournaments_schedule_occurrence",
        "tournaments",
        ["schedule_id", "occurrence"],
        unique=True,
    )


def downgrade() -> None:
    op.drop_index("uq_tournaments_schedule_occurrence", table_name="tournaments")
    with op.batch_alter_table("tournaments", schema=None, recreate="never") as batch_op:
        batch_op.drop_column("conditions")
        batch_op.drop_column("occurrence")
        batch_op.drop_column("schedule_id")
    op.drop_table("schedules")
