"""Passkeys (v1.4 accounts, WebAuthn): players' user handles, their credentials, and the
challenges issued (kept as hashes, used once)

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "passkey_users",
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("handle", sa.String(length=88), nullable=False),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_passkey_users_player_id_players")
        ),
        sa.PrimaryKeyConstraint("player_id", name=op.f("pk_passkey_users")),
        sa.UniqueConstraint("handle", name=op.f("uq_passkey_users_handle")),
    )
    op.create_table(
        "passkeys",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("credential_id", sa.String(length=1400), nullable=False),
        sa.Column("public_key", sa.LargeBinary(), nullable=False),
        sa.Column("sign_count", sa.BigInteger(), nullable=False),
        sa.Column("label", sa.String(length=64), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("last_used_at", sa.DateTime(), nullable=True),
        sa.Column("removed_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_passkeys_player_id_players")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_passkeys")),
        sa.UniqueConstraint("credential_id", name=op.f("uq_passkeys_credential_id")),
    )
    op.create_index(op.f("ix_passkeys_player_id"), "passkeys", ["player_id"])
    op.create_table(
        "passkey_challenges",
        sa.Column("challenge_hash", sa.String(length=64), nullable=False),
        sa.Column("purpose", sa.String(length=16), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("used", sa.Boolean(), nullable=False),
        sa.PrimaryKeyConstraint("challenge_hash", name=op.f("pk_passkey_challenges")),
    )
    op.create_index(op.f("ix_passkey_challenges_created_at"), "passkey_challenges", ["created_at"])


def downgrade() -> None:
    op.drop_index(op.f("ix_passkey_challenges_created_at"), table_name="passkey_challenges")
    op.drop_table("passkey_challenges")
    op.drop_index(op.f("ix_passkeys_player_id"), table_name="passkeys")
    op.drop_table("passkeys")
    op.drop_table("passkey_users")
