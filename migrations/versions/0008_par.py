"""Par (v1.3): one row per entry whose par was computed after the close, and the mark
of a tournament whose par step is done

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-01

`pars.line` holds the actions reaching the par (a Gaps search's line, or the entry's own
prefix); NULL for a Klondike entry, whose par is the tournament's stored solution.
`tournaments.par_at`: when every entry of the closed tournament had its par (the par
step's once-per-tournament mark, competition/par.py).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "pars",
        sa.Column("entry_id", sa.Integer(), nullable=False),
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("progress", sa.Integer(), nullable=False),
        sa.Column("resets", sa.Integer(), nullable=False),
        sa.Column("line", sa.JSON(), nullable=True),
        sa.Column("at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["entry_id"], ["entries.id"], name=op.f("fk_pars_entry_id_entries")
        ),
        sa.ForeignKeyConstraint(
            ["tournament_id"], ["tournaments.id"], name=op.f("fk_pars_tournament_id_tournaments")
        ),
        sa.PrimaryKeyConstraint("entry_id", name=op.f("pk_pars")),
    )
    op.create_index(op.f("ix_pars_tournament_id"), "pars", ["tournament_id"], unique=False)
    with op.batch_alter_table("tournaments", schema=None, recreate="never") as batch:
        batch.add_column(sa.Column("par_at", sa.DateTime(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("tournaments", schema=None, recreate="never") as batch:
        batch.drop_column("par_at")
    op.drop_index(op.f("ix_pars_tournament_id"), table_name="pars")
    op.drop_table("pars")
