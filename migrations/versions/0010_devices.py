"""Devices (v1.4 accounts): every token is one device of its player

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-01

Each player's token so far becomes a device of kind `token`, label null, created and last
seen when the player was (PROTOCOL.md "Accounts": a token issued before v1.4).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "devices",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=True),
        sa.Column("kind", sa.String(length=8), nullable=False),
        sa.Column("label", sa.String(length=64), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("last_seen_at", sa.DateTime(), nullable=False),
        sa.Column("revoked_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_devices_player_id_players")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_devices")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_devices_token_hash")),
    )
    op.create_index(op.f("ix_devices_player_id"), "devices", ["player_id"], unique=False)
    op.execute(
        "INSERT INTO devices (player_id, token_hash, kind, label, created_at, last_seen_at)"
        " SELECT id, token_hash, 'token', NULL, created_at, created_at FROM players"
        " ORDER BY id"
    )


def downgrade() -> None:
    op.drop_index(op.f("ix_devices_player_id"), table_name="devices")
    op.drop_table("devices")
