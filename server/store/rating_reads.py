"""Reading ratings for leaderboards and player pages (the rating step writes them:
ratings.py)."""

from __future__ import annotations

from datetime import datetime
from typing import NamedTuple

from sqlalchemy import and_, func, or_, select

from server.domain.model import Figures
from server.domain.names import name_key
from server.store.models import Entry, EntryPar, Placing, Player, PlayerRating, TournamentRow
from server.store.repository import Store
from server.store.rows import figures_of


class Profile(NamedTuple):
    id: int
    name: str
    bot: bool
    created_at: datetime


class Ranked(NamedTuple):
    """A leaderboard row."""

    name: str
    mu: float
    sigma: float
    rating: float
    tournaments: int


class TournamentResult(NamedTuple):
    """One of a player's placings with its tournament and its entry's figures."""

    tournament_id: int
    name: str
    game: str
    closed_at: datetime | None  # never None once closed
    rank: int | None
    ranked: int
    entrants: int
    figures: Figures
    par_progress: int | None = None  # the entry's par, once computed
    par_resets: int | None = None


class Point(NamedTuple):
    """A player's rating after one rated tournament."""

    tournament_id: int
    closed_at: datetime
    mu: float
    sigma: float


async def profile(store: Store, name: str) -> Profile | None:
    async with store._session() as s:
        row = (
            await s.execute(
                select(Player.id, Player.name, Player.bot, Player.created_at).where(
                    Player.name_key == name_key(name)
                )
            )
        ).first()
        return None if row is None else Profile(*row)


# -- reading -------------------------------------------------------------------------
async def leaderboard(store: Store, game: str, offset: int, limit: int) -> tuple[int, list[Ranked]]:
    """The rated players of `game` (never bots), by rating then name: how many, and the
    rows offset+1..offset+limit."""
    where = (PlayerRating.game == game, Player.bot.is_(False))
    async with store._session() as s:
        total = await s.scalar(
            select(func.count())
            .select_from(PlayerRating)
            .join(Player, Player.id == PlayerRating.player_id)
            .where(*where)
        )
        rows = await s.execute(
            select(
                Player.name,
                PlayerRating.mu,
                PlayerRating.sigma,
                PlayerRating.rating,
                PlayerRating.tournaments,
            )
            .join(Player, Player.id == PlayerRating.player_id)
            .where(*where)
            .order_by(PlayerRating.rating.desc(), Player.name_key, Player.name)
            .offset(offset)
            .limit(limit)
        )
        return total or 0, [Ranked(*r) for r in rows.all()]


async def ratings_of(store: Store, player_id: int) -> dict[str, tuple[Ranked, int]]:
    """The player's rating in each game with its leaderboard rank."""
    out: dict[str, tuple[Ranked, int]] = {}
    async with store._session() as s:
        me = await s.scalar(select(Player).where(Player.id == player_id))
        if me is None:
            return out
        rows = await s.execute(
            select(
                PlayerRating.game,
                PlayerRating.mu,
                PlayerRating.sigma,
                PlayerRating.rating,
                PlayerRating.tournaments,
            )
            .where(PlayerRating.player_id == player_id)
            .order_by(PlayerRating.game)
        )
        for game, mu, sigma, rating, count in rows.all():
            ahead = await s.scalar(
                select(func.count())
                .select_from(PlayerRating)
                .join(Player, Player.id == PlayerRating.player_id)
                .where(
                    PlayerRating.game == game,
                    Player.bot.is_(False),
                    or_(
                        PlayerRating.rating > rating,
                        and_(
                            PlayerRating.rating == rating,
                            or_(
                                Player.name_key < me.name_key,
                                and_(Player.name_key == me.name_key, Player.name < me.name),
                            ),
                        ),
                    ),
                )
            )
            out[game] = (Ranked(me.name, mu, sigma, rating, count), (ahead or 0) + 1)
    return out


async def results_of(store: Store, player_id: int, limit: int | None) -> list[TournamentResult]:
    """The player's placings, newest first (close time, then id), with their entries
    and their pars."""
    query = (
        select(
            TournamentRow.id,
            TournamentRow.name,
            TournamentRow.game,
            TournamentRow.closed_at,
            Placing.rank,
            Placing.ranked,
            Placing.entrants,
            Entry,
            EntryPar.progress,
            EntryPar.resets,
        )
        .join(TournamentRow, TournamentRow.id == Placing.tournament_id)
        .join(
            Entry,
            and_(Entry.tournament_id == Placing.tournament_id, Entry.player_id == player_id),
        )
        .outerjoin(EntryPar, EntryPar.entry_id == Entry.id)
        .where(Placing.player_id == player_id)
        .order_by(TournamentRow.closed_at.desc(), TournamentRow.id.desc())
    )
    if limit is not None:
        query = query.limit(limit)
    async with store._session() as s:
        rows = (await s.execute(query)).all()
        return [
            TournamentResult(*r[:7], figures_of(r[7]), r[8], r[9]) for r in rows
        ]  # in field order


async def history(store: Store, player_id: int) -> dict[str, list[Point]]:
    """The player's rating after each rated tournament, by game, oldest first."""
    out: dict[str, list[Point]] = {}
    async with store._session() as s:
        rows = await s.execute(
            select(
                Placing.game, TournamentRow.id, TournamentRow.closed_at, Placing.mu, Placing.sigma
            )
            .join(TournamentRow, TournamentRow.id == Placing.tournament_id)
            .where(Placing.player_id == player_id, Placing.mu.is_not(None))
            .order_by(TournamentRow.closed_at, TournamentRow.id)
        )
        for game, tid, closed_at, mu, sigma in rows.all():
            if closed_at is None or mu is None or sigma is None:
                continue  # not rated there (the query has none)
            out.setdefault(game, []).append(Point(tid, closed_at, mu, sigma))
    return out


async def bots_in(store: Store, tournament_id: int) -> set[int]:
    """The ids of the bots with an entry in the tournament."""
    async with store._session() as s:
        rows = await s.execute(
            select(Entry.player_id)
            .join(Player, Player.id == Entry.player_id)
            .where(Entry.tournament_id == tournament_id, Player.bot.is_(True))
        )
        return {r[0] for r in rows.all()}
