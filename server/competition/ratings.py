"""Ratings at the close, and the leaderboards and player pages made of them.

`rate_closed(store, tournament_id)` is the close's hook (lifecycle.py, where a close is
announced, on every node): it brings the tournament's game up to date, taking in every
closed tournament of the game not yet taken in, in close order then id, each once
across nodes:
- one taker at a time per game (an advisory lock on PostgreSQL, a lock in the process
  on SQLite), so no two steps read and write the same players' ratings at once;
- a tournament is taken in by one transaction that first marks it (`rated_at`, a
  conditional update exactly one caller wins), then writes its placings and ratings:
  a node that dies midway leaves nothing half done, the next close or node redoes it;
- if a tournament taken in already closed after one still waiting (a close committed
  out of order), the game's ratings are computed again from scratch (`rebuild`).
The ranking and the rating run in a worker process (a process pool), never on the
event loop's process.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
from collections.abc import Callable
from datetime import datetime
from typing import Any, NamedTuple, TypeVar

from server.competition.compute import Compute
from server.competition.errors import CompetitionError
from server.domain import ratings as math
from server.domain.model import TournamentStatus
from server.domain.timing import utcnow
from server.ops import faults
from server.store import rating_reads as reads
from server.store import ratings as stored
from server.store.rating_reads import Point, Profile, Ranked
from server.store.rating_reads import TournamentResult as TournamentResult  # the net's
from server.store.repository import Store

log = logging.getLogger("samedeal.ratings")
GAMES = ("gaps", "klondike")
# Beside the other advisory locks (store/pg_coordination.py LEADER_KEY ...0001, catalogue.py
# DEMO_LOCK ...0002, migrations/env.py MIGRATION_LOCK ...0003): one per game.
RATINGS_LOCK = 0x5A3D_EA1_0100
MAX_LEADERBOARD_PAGE = 100
RECENT = 50
T = TypeVar("T")

# The worker process ratings are computed in (one, spawned, so it inherits no event loop
# or connection; started at the first use or by start_worker).
WORKER = Compute(workers=1)


def start_worker() -> None:
    """Start the worker process now (a server does at start-up), so that the first close
    does not wait for it: a spawned interpreter imports the server's modules first."""
    WORKER.executor().submit(int)


def without_gc(fn: Callable[..., T], *args: Any) -> T:
    """fn(*args) with the garbage collector off. A rating job makes a few hundred
    thousand tuples and no reference cycle; the collections they set off were 80% of the
    job's time at 100,000 entrants (docs/BENCHMARKS.md)."""
    gc.disable()
    try:
        return fn(*args)
    finally:
        gc.enable()


async def off_loop(fn: Callable[..., T], *args: Any) -> T:
    """fn(*args) in the worker process."""
    return await WORKER.run(without_gc, fn, *args)


def lock_key(game: str) -> int:
    return RATINGS_LOCK + (GAMES.index(game) if game in GAMES else len(GAMES))


async def rate_closed(store: Store, tournament_id: int) -> None:
    """The close's hook: take the closed tournament (and any of its game closed before it
    and still waiting) in, once across nodes, in a task of its own, so that neither the
    close nor a node learning of it waits for the rating (seconds at 100,000 entrants).
    The task waits its turn when another taker holds the game. It never raises: a
    failure is logged, and the next close of the game, or `ratings rebuild`, takes the
    tournament in. `settle()` waits for the tasks (a command line before it exits)."""
    task = asyncio.get_running_loop().create_task(_rate(store, tournament_id))
    _later.add(task)
    task.add_done_callback(_later.discard)


_later: set[asyncio.Task[None]] = set()  # rating tasks not finished


async def _rate(store: Store, tournament_id: int) -> None:
    try:
        t = await store.tournament(tournament_id)
        if t is not None and t.status == TournamentStatus.CLOSED:
            await catch_up(store, t.game)
    except Exception as exc:
        if not faults.report(exc, "ratings"):  # the next close (or tick) retries
            log.exception("rating tournament %s failed; the next close retries", tournament_id)


async def settle() -> None:
    """Wait for the rating tasks of this process to finish (a command line before it
    exits; tests before they read ratings)."""
    while _later:
        await asyncio.gather(*_later, return_exceptions=True)


async def catch_up(
    store: Store, game: str, now: Callable[[], datetime] = utcnow, *, wait: bool = True
) -> int | None:
    """Take in every closed tournament of `game` not yet taken in; how many this call
    took in (0: none waited, or another node did them). With wait=False, None at once
    when another taker holds the game."""
    async with stored.game_lock(store, lock_key(game), wait) as held:
        if not held:
            return None
        todo, out_of_order = await stored.pending(store, game)
        if not out_of_order:
            done = 0
            for t in todo:
                done += await _take_in(store, t, now())
            return done
    log.warning("a %s tournament closed out of order: rebuilding every rating", game)
    await rebuild(store, now)
    return len(todo)


async def _take_in(store: Store, t: stored.ClosedTournament, now: datetime) -> int:
    taken = (await stored.field(store, [t.id]))[t.id]
    disqualified = taken.disqualified or [False] * len(taken.players)
    players = [
        p
        for p, bot, dq in zip(taken.players, taken.bots, disqualified, strict=True)
        if math.counts_for_rating(bot, dq)
    ]
    current = await stored.current(store, t.game, players)
    out = await off_loop(math.take_in, t.rated, taken, current)
    done = await stored.record(store, t.id, t.game, taken, out, set(current), now)
    if done:
        rated = sum(m is not None for m in out.mu)
        log.info("tournament %s placed %d entrants, rated %d", t.id, len(out.ranks), rated)
    return int(done)


class Rebuilt(NamedTuple):
    tournaments: int  # closed tournaments replayed
    ratings: int  # ratings stored
    changed: int  # stored ratings and placings the rebuild found different (0: exact)


async def rebuild(store: Store, now: Callable[[], datetime] = utcnow) -> Rebuilt:
    """Every placing and rating computed again from the stored results of every closed
    tournament, replacing the stored ones in one transaction (every game's lock held)."""
    async with contextlib.AsyncExitStack() as locks:
        for game in GAMES:
            await locks.enter_async_context(store.exclusively(lock_key(game)))
        before_ratings, before_placings = await stored.snapshot(store)
        closed = await stored.closed(store)
        fields = await stored.field(store, [t.id for t in closed])
        outcomes, final = await off_loop(
            math.replay, [(t.game, t.rated, fields[t.id]) for t in closed]
        )
        placings = [
            row
            for t, out in zip(closed, outcomes, strict=True)
            for row in math.placing_rows(t.id, t.game, fields[t.id], out)
        ]
        await stored.replace_all(store, [t.id for t in closed], placings, final, now())
    ratings = {(p, g, *r) for (p, g), r in final.items()}
    changed = len(set(before_ratings) ^ ratings) + len(set(before_placings) ^ set(placings))
    return Rebuilt(len(closed), len(final), changed)


# -- reading ------------------------------------------------------------------------------
def _check_game(game: str) -> None:
    if game not in GAMES:
        raise CompetitionError(
            "not_found",
            f"no game {game[:32]!r}: gaps or klondike",
            reason="unknown_game",
            params={"game": game[:32]},
        )


class LeaderboardPage(NamedTuple):
    """A page of `game`'s leaderboard: players by rating (mu - 3 sigma), then name."""

    game: str
    offset: int
    total: int  # rated players of the game
    rows: list[Ranked]  # row i is ranked offset + i + 1


class PlayerPage(NamedTuple):
    """A player's ratings, recent results, streaks and rating history."""

    profile: Profile
    ratings: dict[str, tuple[Ranked, int]]  # per game: the rating and its rank
    recent: list[TournamentResult]  # the RECENT latest, newest first
    streaks: dict[str, int]  # per game with results, by game
    history: dict[str, list[Point]]  # per game: after each rated tournament


class Ratings:
    """The ratings part: leaderboards and player pages, a rebuild from scratch, and
    waiting for this process's rating tasks (`settle`)."""

    def __init__(self, store: Store, now: Callable[[], datetime] = utcnow) -> None:
        self.store = store
        self.now = now

    async def leaderboard(self, game: str, offset: int = 0, limit: int = 100) -> LeaderboardPage:
        """A page of the leaderboard; `not_found` for a game that is not rated."""
        _check_game(game)
        total, rows = await reads.leaderboard(self.store, game, offset, limit)
        return LeaderboardPage(game, offset, total, rows)

    async def player(self, name: str) -> PlayerPage:
        """The player's page (names are case-insensitive); `not_found` for no one."""
        me = await reads.profile(self.store, name)
        if me is None:
            raise CompetitionError(
                "not_found",
                f"no player named {name[:32]!r}",
                reason="no_player",
                params={"name": name[:32]},
            )
        results = await reads.results_of(self.store, me.id, None)
        streaks = {
            game: math.streak([(r.rank, r.ranked) for r in results if r.game == game])
            for game in sorted({r.game for r in results})
        }
        return PlayerPage(
            me,
            await reads.ratings_of(self.store, me.id),
            results[:RECENT],
            streaks,
            await reads.history(self.store, me.id),
        )

    async def rebuild(self) -> Rebuilt:
        """Every rating computed again (`rebuild`)."""
        return await rebuild(self.store, self.now)

    async def settle(self) -> None:
        """Wait for the rating tasks of this process (`settle`)."""
        await settle()
