"""Ratings in the database: players' ratings per game, placings (and with them the
rating's history), the rating step's once-per-tournament mark, bots.

Plain async functions over a `Store`: the rating step and the rebuild write here, the
leaderboard and player pages read here (server/competition/ratings.py)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any, NamedTuple

from sqlalchemy import and_, delete, func, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from server.domain.model import NameTaken, PlayerInfo, TournamentStatus
from server.domain.ratings import FieldEntry, PlacingRow, RatingRow
from server.store.models import Entry, Placing, Player, PlayerRating, Tournament
from server.store.repository import Store

CHUNK = 5000  # rows per statement
# The bulk reads and writes (a field of 100,000, a rebuild of a million placings) go to
# the driver's connection inside the session's transaction: SQLAlchemy's per-row work
# (parameters, rows) was most of their time. SQL is written with ? marks ($n for asyncpg).
INSERT_PLACINGS = (
    "INSERT INTO placings (tournament_id, player_id, game, rank, ranked, entrants, mu, sigma)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
)
INSERT_RATINGS = (
    "INSERT INTO ratings (player_id, game, mu, sigma, tournaments, rating)"
    " VALUES (?, ?, ?, ?, ?, ?)"
)
UPDATE_RATINGS = (
    "UPDATE ratings SET mu = ?, sigma = ?, tournaments = ?, rating = ?"
    " WHERE player_id = ? AND game = ?"
)
SELECT_FIELD = (
    "SELECT e.tournament_id, e.player_id, p.name, p.bot, e.status, e.progress, e.resets,"
    " e.time_ms, e.score,"
    " EXISTS (SELECT 1 FROM disqualifications d WHERE d.entry_id = e.id)"  # fair play
    " FROM entries e JOIN players p ON p.id = e.player_id"
    " WHERE e.tournament_id >= ? AND e.tournament_id <= ? ORDER BY e.tournament_id, e.id"
)


def _dollars(sql: str) -> str:
    parts = sql.split("?")
    return parts[0] + "".join(f"${i}{part}" for i, part in enumerate(parts[1:], 1))


async def _driver(s: AsyncSession) -> tuple[Any, bool]:
    """The session's driver connection (in its transaction) and whether it is asyncpg."""
    conn = await s.connection()
    raw = await conn.get_raw_connection()
    return raw.driver_connection, conn.dialect.name == "postgresql"


async def _executemany(s: AsyncSession, sql: str, rows: list[tuple[Any, ...]]) -> None:
    driver, pg = await _driver(s)
    for start in range(0, len(rows), CHUNK):
        chunk = rows[start : start + CHUNK]
        if pg:
            await driver.executemany(_dollars(sql), chunk)
        else:
            await driver.executemany(sql, chunk)


async def _fetch(s: AsyncSession, sql: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
    driver, pg = await _driver(s)
    if pg:
        return [tuple(r) for r in await driver.fetch(_dollars(sql), *params)]
    return list(await driver.execute_fetchall(sql, params))


class Closed(NamedTuple):
    """A closed tournament, in the order ratings take them (closed_at, then id)."""

    id: int
    game: str
    rated: bool
    closed_at: datetime | None  # never None once closed


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


class Result(NamedTuple):
    """One of a player's placings with its tournament and entry."""

    tournament_id: int
    name: str
    game: str
    closed_at: datetime | None  # never None once closed
    rank: int | None
    ranked: int
    entrants: int
    status: str
    progress: int
    resets: int
    time_ms: int


class Point(NamedTuple):
    """A player's rating after one rated tournament."""

    tournament_id: int
    closed_at: datetime
    mu: float
    sigma: float


# -- players ---------------------------------------------------------------------
async def create_bot(store: Store, name: str, token_hash: str, now: datetime) -> PlayerInfo:
    """A new player marked as a bot (a rare write, one transaction); NameTaken when the
    name (case-insensitively) or the token's hash is taken."""
    async with store._session() as s:
        row = Player(
            name=name,
            name_key=name.casefold(),
            token_hash=token_hash,
            admin=False,
            created_at=now,
            bot=True,
        )
        s.add(row)
        try:
            await s.commit()
        except IntegrityError:
            raise NameTaken(name) from None
        return PlayerInfo(row.id, name, False, True)


async def profile(store: Store, name: str) -> Profile | None:
    async with store._session() as s:
        row = (
            await s.execute(
                select(Player.id, Player.name, Player.bot, Player.created_at).where(
                    Player.name_key == name.casefold()
                )
            )
        ).first()
        return None if row is None else Profile(*row)


# -- the rating step ---------------------------------------------------------------
async def closed(store: Store, game: str | None = None) -> list[Closed]:
    """Closed tournaments (of `game`, or all), in close order then id."""
    query = select(Tournament.id, Tournament.game, Tournament.rated, Tournament.closed_at).where(
        Tournament.status == TournamentStatus.CLOSED
    )
    if game is not None:
        query = query.where(Tournament.game == game)
    async with store._session() as s:
        rows = await s.execute(query.order_by(Tournament.closed_at, Tournament.id))
        return [Closed(*r) for r in rows.all()]


async def pending(store: Store, game: str) -> tuple[list[Closed], bool]:
    """The closed tournaments of `game` the rating step has not taken in, in order, and
    whether one taken in already closed after the first of them (then the game's
    ratings must be computed again from there: the rebuild)."""
    async with store._session() as s:
        rows = await s.execute(
            select(Tournament.id, Tournament.game, Tournament.rated, Tournament.closed_at)
            .where(
                Tournament.status == TournamentStatus.CLOSED,
                Tournament.game == game,
                Tournament.rated_at.is_(None),
            )
            .order_by(Tournament.closed_at, Tournament.id)
        )
        todo = [Closed(*r) for r in rows.all()]
        if not todo:
            return [], False
        first = todo[0]
        later = await s.scalar(
            select(func.count())
            .select_from(Tournament)
            .where(
                Tournament.game == game,
                Tournament.rated_at.is_not(None),
                or_(
                    Tournament.closed_at > first.closed_at,
                    and_(Tournament.closed_at == first.closed_at, Tournament.id > first.id),
                ),
            )
        )
        return todo, bool(later)


async def field(store: Store, tournament_ids: Iterable[int]) -> dict[int, list[FieldEntry]]:
    """The entries of these tournaments as the rating step reads them, by tournament, in
    entry order."""
    ids = sorted(set(tournament_ids))
    out: dict[int, list[FieldEntry]] = {i: [] for i in ids}
    async with store._session() as s:
        for start in range(0, len(ids), 200):  # id ranges, kept to the ids asked for
            span = ids[start : start + 200]
            for r in await _fetch(s, SELECT_FIELD, (span[0], span[-1])):
                if r[0] in out:
                    out[r[0]].append(
                        FieldEntry(r[1], r[2], bool(r[3]), r[4], r[5], r[6], r[7], r[8], bool(r[9]))
                    )
    return out


async def current(store: Store, game: str, player_ids: list[int]) -> dict[int, RatingRow]:
    """The stored ratings in `game` of these players (those who have one)."""
    out: dict[int, RatingRow] = {}
    async with store._session() as s:
        for start in range(0, len(player_ids), CHUNK):
            rows = await s.execute(
                select(
                    PlayerRating.player_id,
                    PlayerRating.game,
                    PlayerRating.mu,
                    PlayerRating.sigma,
                    PlayerRating.tournaments,
                ).where(
                    PlayerRating.game == game,
                    PlayerRating.player_id.in_(player_ids[start : start + CHUNK]),
                )
            )
            for r in rows.all():
                out[r[0]] = RatingRow(*r)
    return out


async def record(
    store: Store,
    tournament_id: int,
    placings: list[PlacingRow],
    moved: list[RatingRow],
    existing: set[int],
    now: datetime,
) -> bool:
    """Take a closed tournament in, once: mark it, write its placings and its rated
    entrants' new ratings (`existing`: the players who had a rating in the game), in one
    transaction. False (nothing written) when it was taken in already (by another node
    or the rebuild)."""
    async with store._session() as s:
        res = await s.execute(
            update(Tournament)
            .where(
                Tournament.id == tournament_id,
                Tournament.status == TournamentStatus.CLOSED,
                Tournament.rated_at.is_(None),
            )
            .values(rated_at=now)
        )
        if not res.rowcount:  # type: ignore[attr-defined]
            await s.rollback()
            return False
        await _write(s, placings, moved, existing)
        await s.commit()
        return True


async def replace_all(
    store: Store,
    closed_ids: list[int],
    placings: list[PlacingRow],
    ratings: list[RatingRow],
    now: datetime,
) -> None:
    """The rebuild's result instead of every stored placing and rating, every closed
    tournament marked as taken in, in one transaction (the marks first, so on SQLite
    no other write commits meanwhile)."""
    async with store._session() as s:
        for start in range(0, len(closed_ids), CHUNK):
            await s.execute(
                update(Tournament)
                .where(Tournament.id.in_(closed_ids[start : start + CHUNK]))
                .values(rated_at=now)
            )
        await s.execute(delete(Placing))
        await s.execute(delete(PlayerRating))
        await _write(s, placings, ratings, set())
        await s.commit()


async def _write(
    s: AsyncSession, placings: list[PlacingRow], moved: list[RatingRow], existing: set[int]
) -> None:
    await _executemany(s, INSERT_PLACINGS, [tuple(p) for p in placings])
    new = [(*r, r.mu - 3.0 * r.sigma) for r in moved if r.player_id not in existing]
    old = [
        (r.mu, r.sigma, r.tournaments, r.mu - 3.0 * r.sigma, r.player_id, r.game)
        for r in moved
        if r.player_id in existing
    ]
    await _executemany(s, INSERT_RATINGS, new)
    await _executemany(s, UPDATE_RATINGS, old)


async def snapshot(store: Store) -> tuple[list[RatingRow], list[PlacingRow]]:
    """Every stored rating and placing, in key order (tests and the rebuild's check)."""
    async with store._session() as s:
        ratings = await _fetch(
            s,
            "SELECT player_id, game, mu, sigma, tournaments FROM ratings"
            " ORDER BY player_id, game",
            (),
        )
        placings = await _fetch(
            s,
            "SELECT tournament_id, player_id, game, rank, ranked, entrants, mu, sigma"
            " FROM placings ORDER BY tournament_id, player_id",
            (),
        )
        return [RatingRow(*r) for r in ratings], [PlacingRow(*p) for p in placings]


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


async def results_of(store: Store, player_id: int, limit: int | None) -> list[Result]:
    """The player's placings, newest first (close time, then id), with their entries."""
    query = (
        select(
            Tournament.id,
            Tournament.name,
            Tournament.game,
            Tournament.closed_at,
            Placing.rank,
            Placing.ranked,
            Placing.entrants,
            Entry.status,
            Entry.progress,
            Entry.resets,
            Entry.time_ms,
        )
        .join(Tournament, Tournament.id == Placing.tournament_id)
        .join(
            Entry,
            and_(Entry.tournament_id == Placing.tournament_id, Entry.player_id == player_id),
        )
        .where(Placing.player_id == player_id)
        .order_by(Tournament.closed_at.desc(), Tournament.id.desc())
    )
    if limit is not None:
        query = query.limit(limit)
    async with store._session() as s:
        return [Result(*r) for r in (await s.execute(query)).all()]


async def history(store: Store, player_id: int) -> dict[str, list[Point]]:
    """The player's rating after each rated tournament, by game, oldest first."""
    out: dict[str, list[Point]] = {}
    async with store._session() as s:
        rows = await s.execute(
            select(Placing.game, Tournament.id, Tournament.closed_at, Placing.mu, Placing.sigma)
            .join(Tournament, Tournament.id == Placing.tournament_id)
            .where(Placing.player_id == player_id, Placing.mu.is_not(None))
            .order_by(Tournament.closed_at, Tournament.id)
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


async def set_rated(store: Store, tournament_id: int, rated: bool) -> bool:
    """Whether the tournament counts for ratings (taken in at its close); False when no
    such tournament."""
    async with store._session() as s:
        res = await s.execute(
            update(Tournament).where(Tournament.id == tournament_id).values(rated=rated)
        )
        await s.commit()
        return bool(res.rowcount)  # type: ignore[attr-defined]
