"""Deleted accounts (v1.4): erased names (never registered again) and erasure amendments

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "erased_names",
        sa.Column("name_key", sa.String(length=64), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_erased_names_player_id_players")
        ),
        sa.PrimaryKeyConstraint("name_key", name=op.f("pk_erased_names")),
        sa.UniqueConstraint("player_id", name=op.f("uq_erased_names_player_id")),
    )
    op.create_table(
        "erasures",
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["tournament_id"],
            ["tournaments.id"],
            name=op.f("fk_erasures_tournament_id_tournaments"),
        ),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_erasures_player_id_players")
        ),
        sa.PrimaryKeyConstraint("tournament_id", "player_id", name=op.f("pk_erasures")),
    )


def downgrade() -> None:
    op.drop_table("erasures")
    op.drop_table("erased_names")
