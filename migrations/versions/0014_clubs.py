"""Clubs (v1.4): clubs, their members and leaders, and wrong codes counted

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "clubs",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=32), nullable=False),
        sa.Column("name_key", sa.String(length=64), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("owner_id", sa.Integer(), nullable=True),
        sa.Column("invite_hash", sa.String(length=64), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["owner_id"], ["players.id"], name=op.f("fk_clubs_owner_id_players")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_clubs")),
        sa.UniqueConstraint("name_key", name=op.f("uq_clubs_name_key")),
        sa.UniqueConstraint("invite_hash", name=op.f("uq_clubs_invite_hash")),
    )
    op.create_index(op.f("ix_clubs_owner_id"), "clubs", ["owner_id"])
    op.create_table(
        "club_members",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("club_id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("leader", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("joined_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["club_id"], ["clubs.id"], name=op.f("fk_club_members_club_id_clubs")
        ),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_club_members_player_id_players")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_club_members")),
        sa.UniqueConstraint("club_id", "player_id", name=op.f("uq_club_members_club_id")),
    )
    op.create_index(op.f("ix_club_members_player_id"), "club_members", ["player_id"])
    op.create_table(
        "code_guesses",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_code_guesses")),
    )
    op.create_index(op.f("ix_code_guesses_player_id"), "code_guesses", ["player_id"])


def downgrade() -> None:
    op.drop_index(op.f("ix_code_guesses_player_id"), table_name="code_guesses")
    op.drop_table("code_guesses")
    op.drop_index(op.f("ix_club_members_player_id"), table_name="club_members")
    op.drop_table("club_members")
    op.drop_index(op.f("ix_clubs_owner_id"), table_name="clubs")
    op.drop_table("clubs")
