"""Ratings in the database: players' ratings per game, placings (and with them the
rating's history), the rating step's once-per-tournament mark, bots.

Plain async functions over a `Store`: the rating step and the rebuild write here, the
leaderboard and player pages read here (server/competition/ratings.py)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterable
from datetime import datetime
from itertools import repeat
from typing import Any, NamedTuple

from sqlalchemy import and_, delete, func, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from server.domain.model import NameTaken, PlayerInfo, TournamentStatus
from server.domain.names import name_key
from server.domain.ratings import Current, Field, PlacingRow, RatingOutcome, RatingRow, placing_rows
from server.store.models import Device, Placing, Player, PlayerRating, TournamentRow
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
    "SELECT e.tournament_id, e.player_id, p.bot, e.progress, e.resets, e.time_ms,"
    " EXISTS (SELECT 1 FROM disqualifications d WHERE d.entry_id = e.id)"  # fair play
    " FROM entries e JOIN players p ON p.id = e.player_id"
    " WHERE e.tournament_id >= ? AND e.tournament_id <= ? ORDER BY e.tournament_id, e.id"
)
SELECT_RATINGS = (
    "SELECT player_id, mu, sigma, tournaments FROM ratings WHERE game = ? AND player_id IN "
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


class ClosedTournament(NamedTuple):
    """A closed tournament, in the order ratings take them (closed_at, then id)."""

    id: int
    game: str
    rated: bool
    closed_at: datetime | None  # never None once closed


# -- players ---------------------------------------------------------------------
async def create_bot(store: Store, name: str, token_hash: str, now: datetime) -> PlayerInfo:
    """A new player marked as a bot (a rare write, one transaction); NameTaken when the
    name (case-insensitively) or the token's hash is taken."""
    async with store._session() as s:
        row = Player(
            name=name,
            name_key=name_key(name),
            token_hash=token_hash,
            admin=False,
            created_at=now,
            bot=True,
        )
        s.add(row)
        try:
            await s.flush()
            s.add(_first_device(row.id, token_hash, now))  # v1.4: its token is a device
            await s.commit()
        except IntegrityError:
            raise NameTaken(name) from None
        return PlayerInfo(row.id, name, False, True)


def _first_device(player_id: int, token_hash: str, now: datetime) -> Device:
    return Device(
        player_id=player_id,
        token_hash=token_hash,
        kind="token",
        label=None,
        created_at=now,
        last_seen_at=now,
    )


# -- the rating step ---------------------------------------------------------------
@contextlib.asynccontextmanager
async def game_lock(store: Store, key: int, wait: bool) -> AsyncIterator[bool]:
    """Hold lock `key` (one taker of a game's ratings at a time, across nodes: an
    advisory lock on PostgreSQL, the store's process lock on SQLite) for the block,
    which gets True; with wait=False, False at once (nothing held) when it is taken."""
    async with store.try_exclusively(key, wait) as held:
        yield held


async def closed(store: Store, game: str | None = None) -> list[ClosedTournament]:
    """Closed tournaments (of `game`, or all), in close order then id."""
    query = select(
        TournamentRow.id, TournamentRow.game, TournamentRow.rated, TournamentRow.closed_at
    ).where(TournamentRow.status == TournamentStatus.CLOSED)
    if game is not None:
        query = query.where(TournamentRow.game == game)
    async with store._session() as s:
        rows = await s.execute(query.order_by(TournamentRow.closed_at, TournamentRow.id))
        return [ClosedTournament(*r) for r in rows.all()]


async def pending(store: Store, game: str) -> tuple[list[ClosedTournament], bool]:
    """The closed tournaments of `game` the rating step has not taken in, in order, and
    whether one taken in already closed after the first of them (then the game's
    ratings must be computed again from there: the rebuild)."""
    async with store._session() as s:
        rows = await s.execute(
            select(
                TournamentRow.id, TournamentRow.game, TournamentRow.rated, TournamentRow.closed_at
            )
            .where(
                TournamentRow.status == TournamentStatus.CLOSED,
                TournamentRow.game == game,
                TournamentRow.rated_at.is_(None),
            )
            .order_by(TournamentRow.closed_at, TournamentRow.id)
        )
        todo = [ClosedTournament(*r) for r in rows.all()]
        if not todo:
            return [], False
        first = todo[0]
        later = await s.scalar(
            select(func.count())
            .select_from(TournamentRow)
            .where(
                TournamentRow.game == game,
                TournamentRow.rated_at.is_not(None),
                or_(
                    TournamentRow.closed_at > first.closed_at,
                    and_(TournamentRow.closed_at == first.closed_at, TournamentRow.id > first.id),
                ),
            )
        )
        return todo, bool(later)


async def field(store: Store, tournament_ids: Iterable[int]) -> dict[int, Field]:
    """The entries of these tournaments as columns, by tournament, in entry order."""
    ids = sorted(set(tournament_ids))
    rows: dict[int, list[tuple[Any, ...]]] = {i: [] for i in ids}
    async with store._session() as s:
        for start in range(0, len(ids), 200):  # id ranges, kept to the ids asked for
            span = ids[start : start + 200]
            for r in await _fetch(s, SELECT_FIELD, (span[0], span[-1])):
                if r[0] in rows:
                    rows[r[0]].append(r)
    out = {}
    for tid, found in rows.items():
        _, players, bots, progress, resets, time_ms, out_ = (
            (list(c) for c in zip(*found, strict=True)) if found else ([], [], [], [], [], [], [])
        )
        disqualified = [bool(d) for d in out_]
        out[tid] = Field(players, [bool(b) for b in bots], progress, resets, time_ms, disqualified)
    return out


async def current(store: Store, game: str, player_ids: list[int]) -> Current:
    """The stored ratings in `game` of these players (those who have one)."""
    out: Current = {}
    async with store._session() as s:
        for start in range(0, len(player_ids), CHUNK):
            chunk = player_ids[start : start + CHUNK]
            sql = SELECT_RATINGS + "(" + ",".join("?" * len(chunk)) + ")"
            for p, mu, sigma, count in await _fetch(s, sql, (game, *chunk)):
                out[p] = (mu, sigma, count)
    return out


async def record(
    store: Store,
    tournament_id: int,
    game: str,
    taken: Field,
    out: RatingOutcome,
    existing: set[int],
    now: datetime,
) -> bool:
    """Take a closed tournament in, once: mark it, write its placings and its rated
    entrants' new ratings (`existing`: the players who had a rating in the game), in one
    transaction. False (nothing written) when it was taken in already (by another node
    or the rebuild)."""
    async with store._session() as s:
        res = await s.execute(
            update(TournamentRow)
            .where(
                TournamentRow.id == tournament_id,
                TournamentRow.status == TournamentStatus.CLOSED,
                TournamentRow.rated_at.is_(None),
            )
            .values(rated_at=now)
        )
        if not res.rowcount:  # type: ignore[attr-defined]
            await s.rollback()
            return False
        await _executemany(s, INSERT_PLACINGS, list(placing_rows(tournament_id, game, taken, out)))
        moved = _moved(game, taken, out)
        await _executemany(s, INSERT_RATINGS, [r for r in moved if r[0] not in existing])
        await _executemany(
            s, UPDATE_RATINGS, [(*r[2:], r[0], r[1]) for r in moved if r[0] in existing]
        )
        await s.commit()
        return True


def _moved(game: str, taken: Field, out: RatingOutcome) -> list[tuple[Any, ...]]:
    """(player, game, mu, sigma, tournaments, rating) of the ratings the outcome moved."""
    return [
        (p, game, m, sg, c, m - 3.0 * sg)
        for p, m, sg, c in zip(taken.players, out.mu, out.sigma, out.tournaments, strict=True)
        if m is not None and sg is not None
    ]


async def replace_all(
    store: Store,
    closed_ids: list[int],
    placings: list[tuple[Any, ...]],
    final: dict[tuple[int, str], tuple[float, float, int]],
    now: datetime,
) -> None:
    """The rebuild's result instead of every stored placing and rating, every closed
    tournament marked as taken in, in one transaction (the marks first, so on SQLite
    no other write commits meanwhile). `placings` holds PlacingRow values."""
    async with store._session() as s:
        for start in range(0, len(closed_ids), CHUNK):
            await s.execute(
                update(TournamentRow)
                .where(TournamentRow.id.in_(closed_ids[start : start + CHUNK]))
                .values(rated_at=now)
            )
        await s.execute(delete(Placing))
        await s.execute(delete(PlayerRating))
        await _executemany(s, INSERT_PLACINGS, placings)
        rows = [(p, g, m, sg, c, m - 3.0 * sg) for (p, g), (m, sg, c) in final.items()]
        await _executemany(s, INSERT_RATINGS, rows)
        await s.commit()


async def snapshot(store: Store) -> tuple[list[RatingRow], list[PlacingRow]]:
    """Every stored rating and placing, in key order (tests and the rebuild's check)."""
    async with store._session() as s:
        ratings = await _fetch(
            s,
            "SELECT player_id, game, mu, sigma, tournaments FROM ratings ORDER BY player_id, game",
            (),
        )
        placings = await _fetch(
            s,
            "SELECT tournament_id, player_id, game, rank, ranked, entrants, mu, sigma"
            " FROM placings ORDER BY tournament_id, player_id",
            (),
        )
        # named tuples made at C speed (tuple.__new__, as _make does): a million of them
        # through their own __new__ took seconds
        return (
            list(map(tuple.__new__, repeat(RatingRow), ratings)),
            list(map(tuple.__new__, repeat(PlacingRow), placings)),
        )


async def set_rated(store: Store, tournament_id: int, rated: bool) -> bool:
    """Whether the tournament counts for ratings (taken in at its close); False when no
    such tournament."""
    async with store._session() as s:
        res = await s.execute(
            update(TournamentRow).where(TournamentRow.id == tournament_id).values(rated=rated)
        )
        await s.commit()
        return bool(res.rowcount)  # type: ignore[attr-defined]
