"""Ratings: players.bot, tournaments.rated / rated_at, ratings and placings

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01

- players.bot (false): bots play but are never rated;
- tournaments.rated (true): whether the tournament counts for ratings; rated_at: when
  the rating step took the closed tournament in (its placings written, ratings moved),
  at most once per tournament (server/competition/ratings.py);
- ratings: a player's current (mu, sigma) per game, with mu - 3 sigma for leaderboards;
- placings: every entry's final rank in a closed tournament, and for rated entrants of
  rated tournaments the rating after it (the history).

Tournaments closed before this revision have no placings: `samedeal-server ratings
rebuild` computes them, and every rating, from the stored results.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("players", schema=None, recreate="never") as batch_op:
        batch_op.add_column(
            sa.Column("bot", sa.Boolean(), server_default=sa.false(), nullable=False)
        )
    with op.batch_alter_table("tournaments", schema=None, recreate="never") as batch_op:
        batch_op.add_column(
            sa.Column("rated", sa.Boolean(), server_default=sa.true(), nullable=False)
        )
        batch_op.add_column(sa.Column("rated_at", sa.DateTime(), nullable=True))
    op.create_table(
        "ratings",
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("game", sa.String(length=16), nullable=False),
        sa.Column("mu", sa.Double(), nullable=False),
        sa.Column("sigma", sa.Double(), nullable=False),
        sa.Column("rating", sa.Double(), nullable=False),
        sa.Column("tournaments", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_ratings_player_id_players")
        ),
        sa.PrimaryKeyConstraint("player_id", "game", name=op.f("pk_ratings")),
    )
    op.create_index("ix_ratings_game_rating", "ratings", ["game", "rating"], unique=False)
    op.create_table(
        "placings",
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("game", sa.String(length=16), nullable=False),
        sa.Column("rank", sa.Integer(), nullable=True),
        sa.Column("ranked", sa.Integer(), nullable=False),
        sa.Column("entrants", sa.Integer(), nullable=False),
        sa.Column("mu", sa.Double(), nullable=True),
        sa.Column("sigma", sa.Double(), nullable=True),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_placings_player_id_players")
        ),
        sa.ForeignKeyConstraint(
            ["tournament_id"],
            ["tournaments.id"],
            name=op.f("fk_placings_tournament_id_tournaments"),
        ),
        sa.PrimaryKeyConstraint("tournament_id", "player_id", name=op.f("pk_placings")),
    )
    op.create_index(op.f("ix_placings_player_id"), "placings", ["player_id"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_placings_player_id"), table_name="placings")
    op.drop_table("placings")
    op.drop_index("ix_ratings_game_rating", table_name="ratings")
    op.drop_table("ratings")
    # in place, never by copying (SQLite's foreign keys forbid it once entries refer)
    with op.batch_alter_table("tournaments", schema=None, recreate="never") as batch_op:
        batch_op.drop_column("rated_at")
        batch_op.drop_column("rated")
    with op.batch_alter_table("players", schema=None, recreate="never") as batch_op:
        batch_op.drop_column("bot")
