"""Linking devices (v1.4 accounts, after RFC 8628): link codes, guesses, and a linked
device's expiry until its token is fetched

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("devices") as batch:
        batch.add_column(sa.Column("expires_at", sa.DateTime(), nullable=True))
    op.create_table(
        "link_codes",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("code_hash", sa.String(length=64), nullable=False),
        sa.Column("poll_hash", sa.String(length=64), nullable=False),
        sa.Column("label", sa.String(length=64), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("expires_at", sa.DateTime(), nullable=False),
        sa.Column("interval_s", sa.Integer(), nullable=False),
        sa.Column("device_id", sa.Integer(), nullable=True),
        sa.Column("last_poll_at", sa.DateTime(), nullable=True),
        sa.Column("fetched", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.ForeignKeyConstraint(
            ["device_id"], ["devices.id"], name=op.f("fk_link_codes_device_id_devices")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_link_codes")),
        sa.UniqueConstraint("code_hash", name=op.f("uq_link_codes_code_hash")),
        sa.UniqueConstraint("poll_hash", name=op.f("uq_link_codes_poll_hash")),
    )
    op.create_table(
        "link_guesses",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("address", sa.String(length=64), nullable=False),
        sa.Column("at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_link_guesses")),
    )
    op.create_index(op.f("ix_link_guesses_player_id"), "link_guesses", ["player_id"])
    op.create_index(op.f("ix_link_guesses_address"), "link_guesses", ["address"])


def downgrade() -> None:
    op.drop_index(op.f("ix_link_guesses_address"), table_name="link_guesses")
    op.drop_index(op.f("ix_link_guesses_player_id"), table_name="link_guesses")
    op.drop_table("link_guesses")
    op.drop_table("link_codes")
    with op.batch_alter_table("devices") as batch:
        batch.drop_column("expires_at")
