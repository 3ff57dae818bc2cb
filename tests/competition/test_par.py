"""Par after the close (COMPETITION.md "Par"): every Gaps entry of a closed tournament
gets its par, computed off the event loop's process, stored once across nodes and
resumed after a restart; records, standings rows, bundle rows and player pages carry
it, and `samedeal verify` accepts the bundle. A guaranteed Klondike deal's par is its
solution."""

from __future__ import annotations

import asyncio
import copy
import json
import os
from collections.abc import Callable
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson
import pytest

from client_cli.__main__ import main as cli_main
from server.audit.verify import verify_document
from server.competition import par as par_step
from server.competition import ratings
from server.competition.bundles import BundleCache
from server.competition.compute import Compute
from server.competition.par import ParStep, klondike_par
from server.competition.service import Competition
from server.domain import timing
from server.domain.model import EntryInfo, Figures, PlayerInfo, Status, TournamentInfo
from server.net import protocol
from server.store import par as stored
from server.store.repository import Store
from tests.competition.conftest import Recorder, first_moves, gaps_spec, player_message
from tests.support.harness import Clock

WAIT_S = 240.0  # generous: the machine is shared
T = datetime(2026, 12, 1, tzinfo=UTC)


def inline() -> Compute:
    """Par jobs in a thread of this process: for tests that are not about the pool."""
    return Compute(ThreadPoolExecutor(1))


async def field(comp: Competition, n: int) -> list[PlayerInfo]:
    return [(await comp.players.register(f"p{i:02d}"))[0] for i in range(n)]


async def play_and_close(
    comp: Competition, clock: Clock, players: list[PlayerInfo], game: str = "gaps", **over: Any
) -> TournamentInfo:
    """A tournament starting now in which player i makes up to 3*i first legal moves
    (Gaps; in Klondike none), then resigns; closed by the clock at its end."""
    start = timing.now_ms_precision(clock.t + timedelta(minutes=1))
    end = start + timedelta(hours=1)
    spec = gaps_spec(game=game, starts_at=start, ends_at=end, time_limit_s=None, **over)
    t = await comp.catalogue.create(spec)
    clock.t = start
    await comp.lifecycle.tick()
    for i, p in enumerate(players):
        _, made = await first_moves(comp, clock, p, t.id, 3 * i if game == "gaps" else 0)
        clock.advance(1)
        await comp.play.act(p, t.id, made + 1, {"kind": "resign"})
    clock.t = end
    await comp.lifecycle.tick()  # the close
    await ratings.settle()
    return comp.catalogue.get(t.id)


def better_or_equal(par: dict[str, Any], result: dict[str, Any]) -> bool:
    return (par["progress"], -par["resets"]) >= (result["progress"], -result["resets"])


async def wait_for(condition: Callable[[], Any], timeout: float = WAIT_S) -> None:
    """Until `condition()` (awaited) is true, looking every 20 ms, at most `timeout` s."""

    async def poll() -> None:
        while not await condition():
            await asyncio.sleep(0.02)

    await asyncio.wait_for(poll(), timeout)


async def test_every_entry_of_a_closed_gaps_tournament_gets_its_par(
    competition: Competition, clock: Clock, tmp_path: Path
) -> None:
    """20 entrants: after the close, the niced pool computes every entry's par (waited for
    as a condition), never worse than the entry's own result; the record carries it with
    its line, standings rows (pages and windows) and bundle rows its figures, the player
    page too; `samedeal verify` accepts the bundle and refuses one with a raised par."""
    step = competition.lifecycle.enable_par()  # the server's: a spawned niced pool
    cache = BundleCache(competition.store, competition.catalogue)
    players = await field(competition, 20)
    t = await play_and_close(competition, clock, players)
    n = len(players)

    async def all_done() -> bool:
        return len(await stored.figures(competition.store, t.id)) == n

    await wait_for(all_done)
    await asyncio.wait_for(step.settle(), WAIT_S)
    assert await stored.pending(competition.store) == []  # marked done
    assert step.computed == n

    entries = {e.player_name: e for e in await competition.store.entries(t.id)}
    for p in players:
        record = await competition.exports.record(t.id, p.name)
        par = record["par"]
        assert set(par) == {"progress", "resets", "line"}
        assert better_or_equal(par, record["result"])
        assert verify_document(record).ok
    assert entries["p19"].figures.progress > 0  # someone played: the witness is a real line

    page = protocol.standings_message(t.id, await competition.standings.page(t.id, 0, 100))
    assert len(page["rows"]) == n
    for row in page["rows"]:
        record = await competition.exports.record(t.id, row["player"])
        assert row["par"] == {k: record["par"][k] for k in ("progress", "resets")}
    window = await competition.standings.window(t.id, 3, 1, "p05")
    assert all(protocol.standing_row(r, window.par, None)["par"] for r in window.rows)

    built = await cache.get(t.id)
    bundle = orjson.loads(built.plain)
    assert all(r["par"] is not None for r in bundle["standings"])
    assert all("par" in r for r in bundle["records"])
    assert verify_document(bundle).ok
    path = tmp_path / "bundle.json"
    path.write_bytes(built.plain)
    assert cli_main(["verify", str(path)]) == 0
    tampered = copy.deepcopy(bundle)
    worst = min(tampered["records"], key=lambda r: r["par"]["progress"])
    worst["par"]["progress"] += 1  # claims more than its line reaches
    path.write_text(json.dumps(tampered))
    assert cli_main(["verify", str(path)]) != 0

    recent = (await player_message(competition, "p19"))["recent"][0]
    par = next(r["par"] for r in bundle["records"] if r["player"]["name"] == "p19")
    assert recent["par"] == {"progress": par["progress"], "resets": par["resets"]}
    await competition.lifecycle.stop()


async def test_rows_carry_a_null_par_until_it_is_computed_and_the_bundle_is_rebuilt(
    competition: Competition, clock: Clock
) -> None:
    """Before the close rows carry no `par`; after it, null until computed; the par step
    tells the tournament once (not once per entry), which rebuilds the kept bundle and
    pushes fresh standings."""
    heard: list[int] = []

    def tell(tournament_id: int) -> None:
        heard.append(tournament_id)
        competition.lifecycle._par_added(tournament_id)

    step = ParStep(competition.store, tell, clock, inline())
    players = await field(competition, 6)
    t = await competition.catalogue.create(gaps_spec(time_limit_s=None))
    await competition.lifecycle.tick()
    await competition.play.join(players[0], t.id)
    before = protocol.standings_message(t.id, await competition.standings.page(t.id, 0, 10))
    assert all("par" not in r for r in before["rows"])
    t = await play_and_close(competition, clock, players[1:])  # a second one, closed
    closed = protocol.standings_message(t.id, await competition.standings.page(t.id, 0, 10))
    assert closed["final"] and [r["par"] for r in closed["rows"]] == [None] * 5
    cache = BundleCache(competition.store, competition.catalogue)
    old = orjson.loads((await cache.get(t.id)).plain)
    assert [r["par"] for r in old["standings"]] == [None] * 5
    assert all("par" not in r for r in old["records"])

    assert await step.catch_up() == 2  # both closed tournaments
    assert heard.count(t.id) == 1  # once for its 5 entries
    after = protocol.standings_message(t.id, await competition.standings.page(t.id, 0, 10))
    assert all(r["par"] is not None for r in after["rows"])
    assert after["version"] > closed["version"]
    new = orjson.loads((await cache.get(t.id)).plain)
    assert cache.builds == 2 and all(r["par"] is not None for r in new["standings"])
    assert await step.catch_up() == 0 and step.computed == 6  # nothing is done twice


class Gate(Executor):
    """Runs the first `open_for` jobs in a thread; later ones never finish (a process
    that stops mid-par)."""

    def __init__(self, open_for: int) -> None:
        self.open_for = open_for
        self.threads = ThreadPoolExecutor(1)

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        if self.open_for <= 0:
            return Future()
        self.open_for -= 1
        return self.threads.submit(fn, *args, **kwargs)


async def test_a_restart_mid_par_resumes_with_the_entries_left(
    competition: Competition,
    clock: Clock,
    store: Store,
    events: Recorder,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A server stopped after the first batch of pars was stored: the tournament is not
    marked; the next server's start takes it in again and computes only the rest."""
    monkeypatch.setattr(par_step, "BATCH", 3)
    players = await field(competition, 8)
    t = await play_and_close(competition, clock, players)
    first = competition.lifecycle.enable_par(
        ParStep(store, lambda _: None, clock, Compute(Gate(3)))
    )
    first.wake()

    async def first_batch() -> bool:
        return len(await stored.figures(store, t.id)) == 3

    await wait_for(first_batch)
    await competition.lifecycle.stop()  # the restart: the second batch never finishes
    assert len(await stored.figures(store, t.id)) == 3
    assert await stored.pending(store) == [t.id]

    again = Competition.build(store, events, clock)
    second = again.lifecycle.enable_par(ParStep(store, lambda _: None, clock, inline()))
    await again.lifecycle.start()  # wakes the par step
    await asyncio.wait_for(second.settle(), WAIT_S)
    assert second.computed == 5  # the rest only
    assert len(await stored.figures(store, t.id)) == 8
    assert await stored.pending(store) == []
    await again.lifecycle.stop()


async def test_par_is_computed_once_by_two_nodes(
    any_store: Store, db_url: str, events: Recorder, clock: Clock
) -> None:
    """Two nodes (two stores on one database, each its own par step) wake at once: the
    lock lets one compute while the other waits, then finds the work done; every entry
    is computed once and the tournament marked once (SQLite and PostgreSQL)."""
    comp = Competition.build(any_store, events, clock)
    players = await field(comp, 6)
    t = await play_and_close(comp, clock, players)
    other = await Store.open(db_url)
    try:
        steps = [ParStep(s, lambda _: None, clock, inline()) for s in (any_store, other)]
        if not any_store.shared:  # SQLite's one node: the lock is the process's
            other._local_locks = any_store._local_locks
        done = await asyncio.wait_for(asyncio.gather(*(s.catch_up() for s in steps)), WAIT_S)
        assert sorted(done) == [0, 1]
        assert sum(s.computed for s in steps) == len(players)
        assert len(await stored.figures(any_store, t.id)) == len(players)
        assert not await stored.finish(any_store, t.id, clock())  # marked already
    finally:
        await other.close()


async def test_a_guaranteed_klondike_deal_has_its_solution_as_par(
    competition: Competition, clock: Clock
) -> None:
    """Klondike with a guaranteed deal: every entry's par is the solution, where it
    leads (every card on a foundation); without a guarantee no par (the step is done at
    once)."""
    step = ParStep(competition.store, lambda _: None, clock, inline())
    players = await field(competition, 3)
    options = {"draw": 1, "guaranteed": True}
    t = await play_and_close(competition, clock, players, game="klondike", options=options)
    assert t.solution
    assert await step.catch_up() == 1
    for p in players:
        record = await competition.exports.record(t.id, p.name)
        assert record["par"]["line"] == t.solution
        assert record["par"]["progress"] == 52
        assert better_or_equal(record["par"], record["result"])
        assert verify_document(record).ok
    plain = await play_and_close(
        competition, clock, players[:1], game="klondike", options={"draw": 1}
    )
    assert await step.catch_up() == 1 and step.computed == 3
    assert "par" not in await competition.exports.record(plain.id, players[0].name)


class Failing(Executor):
    """Every job fails with `error` (a worker's failure, without a worker)."""

    def __init__(self, error: BaseException) -> None:
        self.error = error

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        failed: Future[Any] = Future()
        failed.set_exception(self.error)
        return failed


async def test_a_broken_pool_leaves_the_tournament_to_a_later_catch_up(
    competition: Competition, clock: Clock, store: Store
) -> None:
    """A worker killed (the pool broken) stores nothing and marks nothing: a later
    catch-up computes every entry. A job failing on its entry (ValueError) leaves that
    entry without par, logged, and the tournament is marked."""
    players = await field(competition, 4)
    t = await play_and_close(competition, clock, players)
    broken = ParStep(store, lambda _: None, clock, Compute(Failing(BrokenProcessPool("killed"))))
    with pytest.raises(BrokenProcessPool):
        await broken.catch_up()
    assert await stored.pending(store) == [t.id] and await stored.figures(store, t.id) == {}
    bad = ParStep(store, lambda _: None, clock, Compute(Failing(ValueError("not a line"))))
    assert await bad.catch_up() == 1  # a deterministic failure is not retried forever
    assert await stored.pending(store) == [] and bad.computed == 0


async def test_the_par_pool_runs_niced_worker_processes() -> None:
    """The server's par pool: spawned workers (not this process), each niced by NICE."""
    pool = Compute(workers=1, nice=par_step.NICE)
    try:
        here = os.nice(0)
        assert await asyncio.wait_for(pool.run(os.nice, 0), WAIT_S) == min(here + par_step.NICE, 19)
        assert await pool.run(os.getpid) != os.getpid()
    finally:
        pool.close()


def test_a_klondike_win_with_fewer_recycles_than_the_solution_is_its_own_par() -> None:
    """The solution's par (52 cards, 2 recycles) for every entry but one that won with
    fewer recycles: that one's par is its own line (a par is never worse than the
    result); a tie keeps the solution."""
    solution: tuple[int, int, None] = (52, 2, None)
    own = [{"kind": "draw"}, {"kind": "move", "from": "waste", "to": "fS"}]

    def entry(progress: int, resets: int) -> EntryInfo:
        return EntryInfo(1, 1, 1, "a", T, T, Figures(Status.WON, progress, resets, 0, 0), 2, "", 0)

    assert klondike_par(solution, entry(52, 1), own) == (52, 1, own)
    assert klondike_par(solution, entry(52, 2), own) == solution
    assert klondike_par(solution, entry(30, 0), [*own, {"kind": "resign"}]) == solution
