"""Par after the close (COMPETITION.md "Par"): every entry of a closed tournament gets the
best result a search finds on its own deal and redeal stream, stored once.

`ParStep` runs on every node of a server. A close announced on a node, the server's
start and, once a minute, the lifecycle's tick (a close this node never held; a command
line's close on SQLite) call `wake`, which starts one catch-up task per process (a call
while it runs makes it look again when done). A catch-up takes, in close order, every
closed tournament without the `par_at` mark, once across nodes:
- one taker at a time (an advisory lock on PostgreSQL, held on its own connection, so a
  node that dies releases it; a lock in the process on SQLite): the others wait their
  turn, and then find the work done;
- an entry's par is stored once (`pars` rows; a second writer's row is ignored) as soon
  as its batch is computed, so a taker that dies or restarts resumes with the entries
  left; the tournament is marked (`par_at`, a conditional update) when none is left.
Order and budget: the top TOP entries by rank first; then the rest in rank order, in
batches of BATCH. Each Gaps entry's search is bounded by gaps_search.PAR_TIERS (counted
in positions, so deterministic), which is the whole budget: the rest of a field of N
takes about N x the per-entry time (docs/BENCHMARKS.md "Par") / PAR_WORKERS. A
Klondike tournament's par is its guaranteed deal's solution (computed once for all its
entries; an entry that won with fewer recycles keeps its own line, so a par is never
worse than the result); one without a solution has none (marked done at once).
The searches run in a pool of PAR_WORKERS processes niced by NICE (compute.py), never on
the event loop's process. `tell(tournament_id)` (the tournament's runtime: fresh
standings for watchers, the bundle rebuilt) is called after the top TOP, every
TELL_EVERY entries of the rest and at the end; other nodes hear of each through the
store's notice.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from datetime import datetime
from typing import Any

from server.competition import compute
from server.competition.compute import Compute, ParResult
from server.competition.errors import CompetitionError
from server.domain.model import EntryInfo, TournamentInfo, TournamentStatus
from server.domain.ranking import order_key
from server.ops import faults
from server.store import par as stored
from server.store.ratings import game_lock
from server.store.repository import Store

log = logging.getLogger("samedeal.par")
# Beside the other advisory locks (ratings.py RATINGS_LOCK ...0100 + game): the par taker.
PAR_LOCK = 0x5A3D_EA1_0200
TOP = 100  # entries by rank computed (and published) first
BATCH = 100  # entries computed, then stored, at a time
TELL_EVERY = 5_000  # entries of the rest between two `tell`s (bundle rebuilds)
PAR_WORKERS = 2
NICE = 10
POKE_S = 60.0  # the tick wakes the step at most this often


class ParStep:
    """The par of closed tournaments, computed in the background (see the module)."""

    def __init__(
        self,
        store: Store,
        tell: Callable[[int], None],
        now: Callable[[], datetime],
        pool: Compute | None = None,
        deal_seed: Callable[[TournamentInfo, bytes], bytes] = lambda _t, seed: seed,
    ) -> None:
        """`deal_seed(t, secret seed)`: the seed t's deals read (with a beacon, the deal
        seed of its verified round: catalogue.py `seed`)."""
        self.store = store
        self.tell = tell
        self.now = now
        self.deal_seed = deal_seed
        self.pool = pool or Compute(workers=PAR_WORKERS, nice=NICE)
        self.computed = 0  # entries whose par this process computed (tests, benches)
        self._task: asyncio.Task[None] | None = None
        self._again = False
        self._poked = -POKE_S

    def wake(self) -> None:
        """Take in every closed tournament still without par, in a task of its own."""
        self._again = True
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run())

    def poke(self) -> None:
        """`wake`, at most once every POKE_S seconds (the lifecycle's tick)."""
        moment = time.monotonic()
        if moment - self._poked >= POKE_S:
            self._poked = moment
            self.wake()

    async def settle(self) -> None:
        """Wait until the catch-ups asked for so far are done (tests, benches)."""
        while self._task is not None and not self._task.done():
            await asyncio.shield(self._task)

    async def stop(self) -> None:
        """Cancel the catch-up in progress (what it stored stays) and stop the workers."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        self.pool.close()

    async def _run(self) -> None:
        while self._again:
            self._again = False
            try:
                await self.catch_up()
            except Exception as exc:
                if not faults.report(exc, "par"):
                    log.exception("par step failed; the next close or the next minute retries")

    async def catch_up(self) -> int:
        """Par for every closed tournament still without it, as the one taker; how many
        tournaments this call marked done."""
        done = 0
        async with game_lock(self.store, PAR_LOCK, True):
            for tournament_id in await stored.pending(self.store):
                done += await self.tournament(tournament_id)
        return done

    async def tournament(self, tournament_id: int) -> int:
        """Par for every entry of one closed tournament without it; 1 when this call
        marked the tournament done."""
        t = await self.store.tournament(tournament_id)
        if t is None or t.status != TournamentStatus.CLOSED:
            return 0
        secret = bytes.fromhex(await self.store.secret_seed(t.id))
        try:
            seed = self.deal_seed(t, secret).hex()
        except CompetitionError:  # a beacon round never verified (void): nothing was dealt
            return int(await stored.finish(self.store, t.id, self.now()))
        have = await stored.done_entries(self.store, t.id)
        entries = sorted(await self.store.entries(t.id), key=_rank_order)
        if t.game == "klondike":
            await self._klondike(t, seed, [e for e in entries if e.id not in have])
        elif t.game == "gaps":
            top = [e for e in entries[:TOP] if e.id not in have]
            await self._gaps(t, seed, top, tell_every=None)
            await self._gaps(t, seed, [e for e in entries[TOP:] if e.id not in have], TELL_EVERY)
        marked = await stored.finish(self.store, t.id, self.now())
        if marked:
            log.info("tournament %s: par for %d entries", t.id, len(entries))
        return int(marked)

    async def _gaps(
        self, t: TournamentInfo, seed: str, todo: list[EntryInfo], tell_every: int | None
    ) -> None:
        """Compute and store the par of `todo` (in order) a batch at a time; tell at the
        end, and every `tell_every` entries."""
        since = 0
        for start in range(0, len(todo), BATCH):
            batch = todo[start : start + BATCH]
            logs = await self.store.actions_of_entries([e.id for e in batch])
            jobs = [
                self.pool.run(
                    compute.entry_par,
                    seed,
                    t.options,
                    e.player_id,
                    t.deal_attempt,
                    [a.action for a in logs.get(e.id, ())],
                )
                for e in batch
            ]
            results = await asyncio.gather(*jobs, return_exceptions=True)
            await self._save(t, batch, results, notify=False)
            since += len(batch)
            if tell_every is not None and since >= tell_every:
                await self._announce(t.id)
                since = 0
        if todo:
            await self._announce(t.id)

    async def _klondike(self, t: TournamentInfo, seed: str, todo: list[EntryInfo]) -> None:
        if not todo or not t.solution:
            return  # no guaranteed deal: no par
        result = await self.pool.run(
            compute.solution_par, seed, t.options, t.deal_attempt, t.solution
        )
        for start in range(0, len(todo), BATCH * 10):
            batch = todo[start : start + BATCH * 10]
            better = [e.id for e in batch if beats(e, result)]
            logs = await self.store.actions_of_entries(better)
            pars: list[ParResult | BaseException] = [
                klondike_par(result, e, [a.action for a in logs.get(e.id, ())]) for e in batch
            ]
            await self._save(t, batch, pars, notify=False)
        await self._announce(t.id)

    async def _save(
        self,
        t: TournamentInfo,
        batch: list[EntryInfo],
        results: list[ParResult | BaseException],
        notify: bool,
    ) -> None:
        """Store the batch's pars. A job that failed on its entry (ValueError: a witness
        that is not a legal line; AssertionError: a par line that does not replay) is
        logged and the entry left without par; any other failure (the pool broken, a
        worker killed) is raised after the others are stored, so the tournament is not
        marked and a later catch-up computes the entries left, in a new pool."""
        pars, broken = [], None
        for e, got in zip(batch, results, strict=True):
            if isinstance(got, ValueError | AssertionError):
                log.error("tournament %s: no par for %s: %r", t.id, e.player_name, got)
            elif isinstance(got, BaseException):
                broken = got
            else:
                pars.append(stored.StoredPar(e.id, *got))
        await stored.save(self.store, t.id, pars, self.now(), notify=notify)
        self.computed += len(pars)
        log.info("tournament %s: %d pars computed here", t.id, len(pars))
        if broken is not None:
            self.pool.close()  # the next job starts a new pool
            raise broken

    async def _announce(self, tournament_id: int) -> None:
        """Pars were added: this node's runtime hears now, the others by notice."""
        await stored.announce(self.store, tournament_id)
        self.tell(tournament_id)


def beats(e: EntryInfo, par: ParResult) -> bool:
    """Whether the entry's own result is better than `par` (more progress, then fewer
    resets): a Klondike win with fewer recycles than the solution."""
    return (e.figures.progress, -e.figures.resets) > (par[0], -par[1])


def klondike_par(solution: ParResult, e: EntryInfo, own: list[dict[str, Any]]) -> ParResult:
    """A Klondike entry's par: the solution's (line None: the tournament's solution),
    unless the entry's own game did better (won with fewer recycles), whose line (`own`,
    its actions, a resign left out) is then its par: a par is never worse than the
    entry's own result."""
    if not beats(e, solution):
        return solution
    return e.figures.progress, e.figures.resets, [a for a in own if a.get("kind") != "resign"]


def _rank_order(e: EntryInfo) -> Any:
    f = e.figures
    return order_key(f.progress, f.resets, f.time_ms, e.player_name)
