"""Standings pushes: coalesced per tournament, a frame only to subscribers whose window
changed, congested clients skipped and caught up, the close pushed to all with the seed
and the log root. Subscribers are connections with the transport's broadcast interface."""

from __future__ import annotations

import asyncio
from typing import Any

import orjson

from server.competition.standings.leaderboard import EntryRow, Leaderboard
from server.competition.standings.reading import View
from server.net.fanout import Fanout, Watch
from tests.support.factories import figures
from tests.support.fanout_timer import ManualTimer

HOUR = 3_600_000


class Recording:
    """A connection with the transport's interface, keeping what it is sent."""

    def __init__(self, congested: bool = False) -> None:
        self.congested = congested
        self.writable: asyncio.Future[None] | None = None  # pending while congested
        self.frames: list[dict[str, Any]] = []

    def send_text(self, data: bytes) -> None:
        self.frames.append(orjson.loads(data))


class BoardStandings:
    """Windows read from a real Leaderboard; a query can be held until released."""

    def __init__(self) -> None:
        self.board = Leaderboard(now=1000)
        self.release = asyncio.Event()
        self.release.set()
        self.queries = 0
        self.final = False

    def finish(self, player: str, progress: int, time_ms: int) -> None:
        lost = figures("lost", progress, 0, score=progress, time_ms=time_ms)
        self.board.upsert(EntryRow(player, lost, 0, HOUR))

    async def windows(
        self, tournament_id: int, wanted: list[tuple[int, int, str | None]]
    ) -> dict[tuple[int, int, str | None], View]:
        await self.release.wait()
        self.queries += 1
        return self.views(wanted)

    def windows_now(
        self, tournament_id: int, wanted: list[tuple[int, int, str | None]]
    ) -> dict[tuple[int, int, str | None], View] | None:
        if not self.release.is_set():  # as if the table had to be read first
            return None
        self.queries += 1
        return self.views(wanted)

    def views(
        self, wanted: list[tuple[int, int, str | None]]
    ) -> dict[tuple[int, int, str | None], View]:
        b = self.board
        return {key: View(b.window(*key), b.total, b.version, self.final, b.now) for key in wanted}


async def turns(n: int = 5) -> None:
    """Let the tasks just started run to where they wait (n turns of the loop)."""
    for _ in range(n):
        await asyncio.sleep(0)


async def settle(fanout: Fanout) -> None:
    """Until the rounds started (or scheduled by a callback) have been pushed."""
    await turns(2)
    await fanout.settled()


def names(frame: dict[str, Any]) -> list[str]:
    return [r["player"] for r in frame["rows"]]


def subscribe(fanout: Fanout, conn: Recording, top: int, around: int, me: str | None) -> None:
    fanout.subscribe(1, conn, Watch(top, around, me))  # type: ignore[arg-type]


async def test_a_change_during_a_push_schedules_exactly_one_more() -> None:
    standings = BoardStandings()
    standings.release.clear()
    timer = ManualTimer()
    fanout = Fanout(standings, min_interval=0.2, timer=timer)  # type: ignore[arg-type]
    conn = Recording()
    subscribe(fanout, conn, 10, 5, None)
    standings.finish("ann", 5, 100)
    fanout.standings_changed(1)
    await turns()  # the first push is now waiting on its query
    standings.finish("bob", 9, 100)
    fanout.standings_changed(1)  # a change while it runs: the next window's push
    second = fanout.rooms[1].pending
    standings.release.set()
    await turns()  # the first push ends; the second waits out the interval
    fanout.standings_changed(1)  # must join the pending push, not start a third
    assert fanout.rooms[1].pending is second
    assert standings.queries == 1
    timer.advance(0.2)
    await fanout.settled()
    assert standings.queries == 2
    # both pushes read the board after bob's change: the second window equals the first,
    # so it is not sent again
    assert [names(f) for f in conn.frames] == [["bob", "ann"]]
    assert conn.frames[-1]["total"] == 2 and conn.frames[-1]["version"] == standings.board.version


async def test_a_frame_goes_only_to_windows_that_changed() -> None:
    standings = BoardStandings()
    for i in range(30):
        standings.finish(f"p{i:02d}", 40 - i, 1000)
    fanout = Fanout(standings, min_interval=0.0)  # type: ignore[arg-type]
    top, bottom = Recording(), Recording()
    subscribe(fanout, top, 3, 0, None)
    subscribe(fanout, bottom, 3, 2, "p29")
    fanout.standings_changed(1)
    await settle(fanout)
    assert names(top.frames[-1]) == ["p00", "p01", "p02"]
    assert names(bottom.frames[-1]) == ["p00", "p01", "p02", "p27", "p28", "p29"]
    standings.finish("p28", 10, 900)  # moves near the bottom only: the top is the same
    fanout.standings_changed(1)
    await settle(fanout)
    assert len(top.frames) == 1 and len(bottom.frames) == 2
    assert names(bottom.frames[-1])[3:] == ["p26", "p27", "p29", "p28"]
    assert bottom.frames[1]["version"] > bottom.frames[0]["version"]


async def test_a_congested_client_is_skipped_then_caught_up_with_the_latest() -> None:
    standings = BoardStandings()
    fanout = Fanout(standings, min_interval=0.0)  # type: ignore[arg-type]
    slow, other = Recording(congested=True), Recording()
    subscribe(fanout, slow, 10, 5, None)
    subscribe(fanout, other, 10, 5, None)
    standings.finish("ann", 5, 100)
    fanout.standings_changed(1)
    await settle(fanout)
    standings.finish("bob", 6, 100)
    fanout.standings_changed(1)
    await settle(fanout)
    assert slow.frames == [] and len(other.frames) == 2
    slow.congested = False
    standings.finish("cat", 7, 100)
    fanout.standings_changed(1)
    await settle(fanout)
    assert len(slow.frames) == 1 and names(slow.frames[0]) == ["cat", "bob", "ann"]


async def test_the_close_pushes_the_final_window_then_the_seed_and_log_root_to_all() -> None:
    standings = BoardStandings()
    standings.finish("ann", 5, 100)
    fanout = Fanout(standings)  # type: ignore[arg-type]
    conn = Recording()
    subscribe(fanout, conn, 10, 5, None)
    standings.final = True
    fanout.tournament_closed(1, "ab" * 32, "cd" * 32)
    await settle(fanout)
    assert [f["type"] for f in conn.frames] == ["standings", "closed"]
    assert conn.frames[0]["final"] is True
    assert conn.frames[1] == {
        "type": "closed",
        "tournament": 1,
        "seed": "ab" * 32,
        "log_root": "cd" * 32,
    }


async def test_unsubscribed_and_dropped_connections_get_nothing() -> None:
    standings = BoardStandings()
    fanout = Fanout(standings, min_interval=0.0)  # type: ignore[arg-type]
    left, dropped = Recording(), Recording()
    subscribe(fanout, left, 10, 5, None)
    subscribe(fanout, dropped, 10, 5, None)
    fanout.unsubscribe(1, left)  # type: ignore[arg-type]
    fanout.drop(dropped)  # type: ignore[arg-type]
    standings.finish("ann", 5, 100)
    fanout.standings_changed(1)
    await settle(fanout)
    assert left.frames == [] and dropped.frames == []


async def test_the_reveal_reaches_a_congested_client_too() -> None:
    standings = BoardStandings()
    standings.finish("ann", 5, 100)
    fanout = Fanout(standings)  # type: ignore[arg-type]
    slow = Recording(congested=True)
    subscribe(fanout, slow, 10, 5, None)
    gone = Recording()
    gone.gone = True  # type: ignore[attr-defined]  # lost while its subscribe was answered
    subscribe(fanout, gone, 10, 5, None)
    fanout.tournament_closed(1, "ab" * 32, "cd" * 32)
    await settle(fanout)
    assert [f["type"] for f in slow.frames] == ["closed"]  # the seed, whatever the lag
    assert gone.frames == [] and gone not in fanout.subscribers(1)


def test_a_frame_is_the_protocol_standings_message() -> None:
    from server.net import protocol
    from server.net.fanout import _Frames

    standings = BoardStandings()
    for i in range(30):
        standings.finish(f"p{i:02d}", 40 - i, 1000)
    b = standings.board
    rows = b.window(3, 2, "p29")
    view = View(rows, b.total, 42, False, b.now, 3)
    frames = _Frames(9)
    frames.add({(3, 2, "p29"): view})
    _, frame = frames.made[(3, 2, "p29")]
    assert orjson.loads(frame) == protocol.standings_message(9, view)
    plain = View(b.window(5, 0), b.total, 43, True, b.now)
    frames.add({(5, 0, None): plain})
    assert orjson.loads(frames.made[(5, 0, None)][1]) == protocol.standings_message(9, plain)


class Ticking:
    """A clock that moves `step` seconds each time it is read."""

    def __init__(self, step: float) -> None:
        self.now, self.step = 0.0, step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


async def test_a_round_yields_to_the_loop_between_slices() -> None:
    from server.net.fanout import BATCH, SLICE_S

    standings = BoardStandings()
    for i in range(300):
        standings.finish(f"p{i:03d}", i % 40, 1000 + i)
    fanout = Fanout(standings, min_interval=0.0, clock=Ticking(SLICE_S * 0.6))  # type: ignore[arg-type]
    conns = [Recording() for _ in range(20 * BATCH)]
    for i, conn in enumerate(conns):
        subscribe(fanout, conn, 3, 1, f"p{i:03d}")
    turns = 0

    async def other_work() -> None:
        nonlocal turns
        while True:
            turns += 1
            await asyncio.sleep(0)

    worker = asyncio.create_task(other_work())
    await asyncio.sleep(0)
    before = turns
    held = await fanout._push(1)
    worker.cancel()
    assert all(len(c.frames) == 1 for c in conns)
    # the clock says each batch takes 0.6 of a slice: the loop runs other work every two
    assert turns - before >= len(conns) // BATCH // 2 - 1
    assert held >= len(conns) // BATCH * SLICE_S * 0.6  # every batch read the clock


async def test_rounds_that_hold_the_loop_long_are_spaced_out() -> None:
    from server.net.fanout import LOOP_SHARE

    standings = BoardStandings()
    timer = ManualTimer()
    fanout = Fanout(standings, min_interval=0.01, clock=Ticking(0.1), timer=timer)  # type: ignore[arg-type]
    conn = Recording()
    subscribe(fanout, conn, 10, 5, None)
    standings.finish("ann", 5, 100)
    fanout.standings_changed(1)
    await fanout.settled()
    assert len(conn.frames) == 1
    spacing = fanout.rooms[1].spacing
    assert spacing >= 0.1 / LOOP_SHARE  # the clock says the round held the loop 0.1 s
    standings.finish("bob", 6, 100)
    fanout.standings_changed(1)
    timer.advance(spacing * 0.9)
    await turns()
    assert len(conn.frames) == 1  # the next round waits out the spacing (0.5 s or more)
    timer.advance(spacing * 0.1)
    await fanout.settled()
    assert len(conn.frames) == 2


async def test_rounds_of_a_tournament_never_overlap() -> None:
    standings = BoardStandings()
    fanout = Fanout(standings, min_interval=0.0)  # type: ignore[arg-type]
    conn = Recording()
    subscribe(fanout, conn, 10, 5, None)
    standings.finish("ann", 5, 100)
    standings.release.clear()
    fanout.standings_changed(1)
    await turns()  # the first round waits on its windows
    standings.finish("bob", 9, 100)
    fanout.standings_changed(1)
    await turns()
    assert standings.queries == 0  # the second round waits for the first to end
    standings.release.set()
    await settle(fanout)
    assert standings.queries == 2
    assert [names(f) for f in conn.frames] == [["bob", "ann"]]  # read after bob's change


async def test_a_close_calls_off_the_round_in_progress() -> None:
    standings = BoardStandings()
    fanout = Fanout(standings, min_interval=0.0)  # type: ignore[arg-type]
    watchers = [Recording() for _ in range(3)]
    for conn in watchers:
        subscribe(fanout, conn, 10, 5, None)
    standings.finish("ann", 5, 100)
    standings.release.clear()
    fanout.standings_changed(1)
    await turns()  # a round is reading its windows
    standings.finish("bob", 9, 100)
    standings.final = True
    fanout.tournament_closed(1, "ab" * 32, "cd" * 32)
    standings.release.set()
    await settle(fanout)
    for conn in watchers:  # the final window then the reveal, nothing read before after
        assert [f["type"] for f in conn.frames] == ["standings", "closed"]
        assert conn.frames[0]["final"] is True and names(conn.frames[0]) == ["bob", "ann"]


async def test_a_window_changed_during_a_round_gets_the_new_one_later() -> None:
    standings = BoardStandings()
    for i in range(10):
        standings.finish(f"p{i}", 40 - i, 1000)
    fanout = Fanout(standings, min_interval=0.0)  # type: ignore[arg-type]
    stays, leaves = Recording(), Recording()
    subscribe(fanout, stays, 2, 0, None)
    subscribe(fanout, leaves, 2, 0, None)
    standings.release.clear()
    fanout.standings_changed(1)
    await turns()
    fanout.unsubscribe(1, leaves)  # while the round reads its windows
    subscribe(fanout, stays, 3, 0, None)  # a new window for the other
    standings.release.set()
    await settle(fanout)
    assert leaves.frames == []  # unsubscribed: nothing after its reply
    assert stays.frames == []  # its new window was not read in that round
    standings.finish("p9", 50, 1000)
    fanout.standings_changed(1)
    await settle(fanout)
    assert names(stays.frames[-1]) == ["p9", "p0", "p1"]


async def test_a_congested_client_gets_the_latest_once_it_reads_again() -> None:
    standings = BoardStandings()
    fanout = Fanout(standings, min_interval=0.0)  # type: ignore[arg-type]
    slow = Recording(congested=True)
    slow.writable = asyncio.get_running_loop().create_future()
    subscribe(fanout, slow, 10, 5, None)
    standings.finish("ann", 5, 100)
    fanout.standings_changed(1)
    await settle(fanout)
    assert slow.frames == []
    slow.congested = False  # the transport resumes writing: no change since
    slow.writable.set_result(None)
    await settle(fanout)
    assert [names(f) for f in slow.frames] == [["ann"]]
