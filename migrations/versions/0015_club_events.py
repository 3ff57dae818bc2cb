"""Club events (v1.4): a tournament's or schedule's club, visibility, entry code and
creator, a battle's clubs, an entry's club; a club's invitation code kept as such

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-02
"""

from __future__ import annotations

import secrets
import string

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None

_ALPHABET = string.ascii_letters + string.digits


def _event_columns(batch_op: object, table: str) -> None:
    add = batch_op.add_column  # type: ignore[attr-defined]
    add(sa.Column("club_id", sa.Integer(), nullable=True))
    add(sa.Column("visibility", sa.String(length=8), server_default="public", nullable=False))
    add(sa.Column("entry_code", sa.String(length=32), nullable=True))
    add(sa.Column("created_by", sa.Integer(), nullable=True))


def upgrade() -> None:
    with op.batch_alter_table("tournaments", schema=None) as batch_op:
        _event_columns(batch_op, "tournaments")
        batch_op.add_column(sa.Column("battle", sa.JSON(), nullable=True))
        batch_op.create_foreign_key(
            batch_op.f("fk_tournaments_club_id_clubs"), "clubs", ["club_id"], ["id"]
        )
        batch_op.create_foreign_key(
            batch_op.f("fk_tournaments_created_by_players"), "players", ["created_by"], ["id"]
        )
        batch_op.create_index(batch_op.f("ix_tournaments_club_id"), ["club_id"])
    with op.batch_alter_table("schedules", schema=None) as batch_op:
        _event_columns(batch_op, "schedules")
        batch_op.create_foreign_key(
            batch_op.f("fk_schedules_club_id_clubs"), "clubs", ["club_id"], ["id"]
        )
        batch_op.create_foreign_key(
            batch_op.f("fk_schedules_created_by_players"), "players", ["created_by"], ["id"]
        )
        batch_op.create_index(batch_op.f("ix_schedules_club_id"), ["club_id"])
    with op.batch_alter_table("entries", schema=None) as batch_op:
        batch_op.add_column(sa.Column("club_id", sa.Integer(), nullable=True))
        batch_op.create_foreign_key(
            batch_op.f("fk_entries_club_id_clubs"), "clubs", ["club_id"], ["id"]
        )
    # The invitation code itself (an invitation, not a credential): its hash cannot be
    # turned back into the code, so a club made before this revision gets a new one.
    with op.batch_alter_table("clubs", schema=None) as batch_op:
        batch_op.add_column(sa.Column("invite", sa.String(length=32), nullable=True))
    clubs = sa.table(
        "clubs",
        sa.column("id", sa.Integer()),
        sa.column("invite", sa.String()),
        sa.column("invite_hash", sa.String()),
    )
    conn = op.get_bind()
    for (club_id,) in conn.execute(sa.select(clubs.c.id).where(clubs.c.invite_hash.is_not(None))):
        code = "".join(secrets.choice(_ALPHABET) for _ in range(12))
        conn.execute(sa.update(clubs).where(clubs.c.id == club_id).values(invite=code))
    with op.batch_alter_table("clubs", schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f("uq_clubs_invite_hash"), type_="unique")
        batch_op.drop_column("invite_hash")
        batch_op.create_unique_constraint(batch_op.f("uq_clubs_invite"), ["invite"])


def downgrade() -> None:
    with op.batch_alter_table("clubs", schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f("uq_clubs_invite"), type_="unique")
        batch_op.drop_column("invite")
        batch_op.add_column(sa.Column("invite_hash", sa.String(length=64), nullable=True))
        batch_op.create_unique_constraint(batch_op.f("uq_clubs_invite_hash"), ["invite_hash"])
    with op.batch_alter_table("entries", schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f("fk_entries_club_id_clubs"), type_="foreignkey")
        batch_op.drop_column("club_id")
    for table in ("schedules", "tournaments"):
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.drop_index(batch_op.f(f"ix_{table}_club_id"))
            batch_op.drop_constraint(
                batch_op.f(f"fk_{table}_created_by_players"), type_="foreignkey"
            )
            batch_op.drop_constraint(batch_op.f(f"fk_{table}_club_id_clubs"), type_="foreignkey")
            if table == "tournaments":
                batch_op.drop_column("battle")
            for column in ("created_by", "entry_code", "visibility", "club_id"):
                batch_op.drop_column(column)
