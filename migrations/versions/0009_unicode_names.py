"""Names in any alphabet (v1.4): `players.name_key` holds the NFC form lower-cased, which
can be longer than the name ("İ" lower-cases to two code points), so it widens to 64

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-01

Every key stored before is an ASCII name casefolded, which equals its new key: no row
changes.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("players") as batch:
        batch.alter_column("name_key", type_=sa.String(64), existing_type=sa.String(32))


def downgrade() -> None:
    with op.batch_alter_table("players") as batch:
        batch.alter_column("name_key", type_=sa.String(32), existing_type=sa.String(64))
