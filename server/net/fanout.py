"""Standings pushes (PROTOCOL.md v1.1 windows): each subscriber watches a window of a
tournament's standings (the top rows and the rows around its own entry); after a change a
push round runs at most 3.3 times a second per tournament, and less often when its rounds
would hold the event loop more than LOOP_SHARE of the time (a crowded tournament refreshes
its standings less often rather than slow its play); a subscriber gets a frame only when
the rows of its window changed (the running clocks of playing rows excepted:
clients advance those from `server_time`). A congested client misses a push and gets the
latest once it reads again. The close pushes the final window and the reveal to all."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import orjson

from server.competition.standings.reading import Standings, View
from server.competition.standings.table import WindowKey
from server.domain import timing
from server.domain.model import Status, TournamentInfo
from server.domain.ranking import Row
from server.net import protocol
from server.net.connection import WsConnection
from server.ops import faults

log = logging.getLogger("samedeal.fanout")
MIN_INTERVAL_S = 0.3  # at most 4 standings pushes per second per tournament (3.3)
LOOP_SHARE = 0.2  # push rounds are spaced so that they hold the event loop at most this
BATCH = 4  # subscribers whose windows are read together
SLICE_S = 0.001  # the longest a push holds the event loop before it yields
PLAYING = Status.PLAYING


@dataclass(slots=True)
class Watch:
    """One subscriber's window, and what it was last sent of it."""

    top: int
    around: int
    player: str | None
    seen: tuple[Any, ...] | None = None

    @property
    def key(self) -> WindowKey:
        return (self.top, self.around, self.player)


def seen_of(view: View) -> tuple[Any, ...]:
    """What a window shows, less the running clocks (a client advances those); after
    the close, how many pars are known (pars are only ever added)."""
    return (view.final, view.gap_after, _pars(view), *(_look(r) for r in view.rows))


def _pars(view: View) -> int:
    return -1 if view.par is None else len(view.par)


def _look(r: Row) -> tuple[Any, ...]:
    if r.status == PLAYING:  # its clock runs on at the client
        return (r.rank, r.player, r.status, r.progress, r.resets, r.score)
    return r


class Timer(Protocol):
    """Time as the fan-out sees it: a monotonic clock (seconds) and a way to wait. A
    server passes `LoopTimer`; a test passes one it moves itself."""

    def now(self) -> float: ...

    async def sleep(self, seconds: float) -> None: ...


class LoopTimer:
    """The event loop's time: `time.monotonic` and `asyncio.sleep`."""

    def now(self) -> float:
        return time.monotonic()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


@dataclass(slots=True)
class _Room:
    """One tournament's subscribers and its push schedule. It exists while it has
    subscribers or a round to push, and is dropped after (`Fanout._tidy`)."""

    subscribers: dict[WsConnection, Watch] = field(default_factory=dict)
    pending: asyncio.Task[None] | None = None  # the next round, waiting
    running: asyncio.Task[None] | None = None  # the round being pushed
    final: asyncio.Task[None] | None = None  # the close's push
    turn: asyncio.Lock = field(default_factory=asyncio.Lock)  # one round at a time
    last: float = float("-inf")  # when the last round ended
    spacing: float = 0.0  # from the end of a round to the next

    @property
    def busy(self) -> bool:
        return any(t is not None and not t.done() for t in (self.pending, self.running, self.final))


class Fanout:
    """The server's event sink (competition.events.Events): standings windows and closes
    pushed to the connections subscribed to a tournament."""

    def __init__(
        self,
        standings: Standings,
        min_interval: float = MIN_INTERVAL_S,
        clock: Callable[[], float] = time.perf_counter,
        timer: Timer | None = None,
    ) -> None:
        self.standings = standings
        self.min_interval = min_interval
        self.clock = clock  # measures how long a round holds the loop
        self.timer: Timer = timer or LoopTimer()  # spaces the rounds
        self.rooms: dict[int, _Room] = {}
        self._waiting: set[WsConnection] = set()  # congested subscribers a round waits for
        self.pushes = 0  # push rounds computed (for benches)
        self.frames = 0  # standings frames sent
        self.longest_hold = 0.0  # the longest one slice held the loop (for benches)

    def _room(self, tournament_id: int) -> _Room:
        room = self.rooms.get(tournament_id)
        if room is None:
            room = self.rooms[tournament_id] = _Room(spacing=self.min_interval)
        return room

    def _tidy(self, tournament_id: int) -> None:
        """Drop the room of a tournament nobody watches and nothing is pushed to."""
        room = self.rooms.get(tournament_id)
        if room is not None and not room.subscribers and not room.busy and not room.turn.locked():
            del self.rooms[tournament_id]

    def subscribers(self, tournament_id: int) -> dict[WsConnection, Watch]:
        """The tournament's subscribers and their windows (empty: nobody watches)."""
        room = self.rooms.get(tournament_id)
        return {} if room is None else room.subscribers

    def subscribe(self, tournament_id: int, conn: WsConnection, watch: Watch) -> None:
        """Watch a window; `watch.seen` is what the subscribe reply showed. A connection
        lost meanwhile (the reply was awaited) is not kept."""
        if not getattr(conn, "gone", False):
            self._room(tournament_id).subscribers[conn] = watch

    def watching(self, tournament_id: int, conn: WsConnection) -> bool:
        """Whether the connection is subscribed to the tournament."""
        return conn in self.subscribers(tournament_id)

    def unsubscribe(self, tournament_id: int, conn: WsConnection) -> None:
        room = self.rooms.get(tournament_id)
        if room is not None:
            room.subscribers.pop(conn, None)
            self._tidy(tournament_id)

    def drop(self, conn: WsConnection) -> None:
        for tournament_id in [k for k, room in self.rooms.items() if conn in room.subscribers]:
            self.unsubscribe(tournament_id, conn)

    async def settled(self) -> None:
        """Once no round is waiting or being pushed (for tests and benches)."""
        while tasks := [
            t
            for room in self.rooms.values()
            for t in (room.pending, room.running, room.final)
            if t is not None and not t.done()
        ]:
            await asyncio.wait(tasks)

    # -- Events ----------------------------------------------------------------
    def standings_changed(self, tournament_id: int) -> None:
        """Standings may have changed: push once soon, coalescing further changes."""
        room = self.rooms.get(tournament_id)
        if room is None or not room.subscribers or room.pending is not None:
            return
        room.pending = asyncio.get_running_loop().create_task(self._push_later(tournament_id))

    def tournament_changed(self, tournament: TournamentInfo) -> None:
        """Created or opened: nothing to push (the lobby polls `tournaments`)."""

    def tournament_closed(self, tournament_id: int, seed: str, log_root: str) -> None:
        """Final standings, then the revealed seed and the receipts' root, to every
        subscriber: the round waiting and the round being pushed are called off, so no
        window read before the close follows the final one."""
        room = self.rooms.get(tournament_id)
        if room is None:
            return  # nobody watches: late watchers get the reveal when they subscribe
        for task in (room.pending, room.running):
            if task is not None:
                task.cancel()
        room.pending = None
        closed = protocol.closed_message(tournament_id, seed, log_root)
        loop = asyncio.get_running_loop()
        room.final = loop.create_task(self._push_final(tournament_id, closed))

    # -- pushing -----------------------------------------------------------------
    async def _push_later(self, tournament_id: int) -> None:
        """The next round: after the round being pushed (never two of a tournament at
        once: a later one could send a window older than an earlier one's), `spacing`
        after its end."""
        room = self._room(tournament_id)
        me = asyncio.current_task()
        try:
            async with room.turn:
                wait = room.last + room.spacing - self.timer.now()
                if wait > 0:
                    await self.timer.sleep(wait)
                if room.pending is me:
                    room.pending = None  # changes from now on schedule anew
                room.running = me
                try:
                    held = await self._push(tournament_id)
                finally:
                    room.running = None
                    room.last = self.timer.now()
                room.spacing = max(self.min_interval, held / LOOP_SHARE)
        except Exception as exc:
            if not faults.report(exc, "standings push"):
                log.exception("standings push for tournament %s failed", tournament_id)
        finally:  # after a failure before the reset; never another task's registration
            if room.pending is me:
                room.pending = None
            asyncio.get_running_loop().call_soon(self._tidy, tournament_id)

    async def _push(self, tournament_id: int, then: dict[str, Any] | None = None) -> float:
        """Each subscriber's window where it changed (all of them when `then` follows),
        BATCH subscribers at a time (their windows read together), yielding to the loop
        once a slice has held it SLICE_S: an act waits for at most about one slice, not a
        round. Each row's JSON is made once per round, whatever the windows showing it.
        Returns how long the round held the loop (its slices, in seconds): the next round
        waits so that rounds hold it at most LOOP_SHARE of the time, so a crowded
        tournament's standings refresh less often instead of slowing its play."""
        subs = self.subscribers(tournament_id)
        if not subs:
            return 0.0
        self.pushes += 1
        maker = _Frames(tournament_id)
        after = None if then is None else orjson.dumps(then)
        conns = list(subs)
        clock = self.clock
        began = clock()
        held = 0.0
        for start in range(0, len(conns), BATCH):
            if (hold := clock() - began) > SLICE_S:
                held += hold
                self.longest_hold = max(self.longest_hold, hold)
                await asyncio.sleep(0)
                began = clock()
            part = conns[start : start + BATCH]
            watching = (subs.get(conn) for conn in part)  # as they are now
            wanted = list({w.key for w in watching if w is not None} - maker.made.keys())
            if wanted:
                views = self.standings.windows_now(tournament_id, wanted)
                if views is None:  # the table is read from the store: not the loop's time
                    held += clock() - began
                    views = await self.standings.windows(tournament_id, wanted)
                    began = clock()
                maker.add(views)
            self._send(tournament_id, subs, part, maker, after)
        hold = clock() - began
        self.longest_hold = max(self.longest_hold, hold)
        return held + hold

    def _when_writable(self, tournament_id: int, conn: WsConnection) -> None:
        """A round once a congested subscriber reads again, so that it gets the latest
        window even when nothing changes after (rounds coalesce: one serves many)."""
        writable = getattr(conn, "writable", None)
        if writable is None or conn in self._waiting:
            return
        self._waiting.add(conn)

        def resumed(_: object) -> None:
            self._waiting.discard(conn)
            if not getattr(conn, "gone", False):
                self.standings_changed(tournament_id)

        writable.add_done_callback(resumed)

    def _send(
        self,
        tournament_id: int,
        subs: dict[WsConnection, Watch],
        part: list[WsConnection],
        maker: _Frames,
        after: bytes | None,
    ) -> None:
        for conn in part:
            if getattr(conn, "gone", False):
                subs.pop(conn, None)
                continue
            watch = subs.get(conn)  # as it is now: it may have changed during the round
            if watch is None:  # unsubscribed meanwhile
                continue
            made = maker.made.get(watch.key)
            if conn.congested or made is None:  # (made is None: it subscribed meanwhile)
                if made is not None and made[0] != watch.seen:
                    self._when_writable(tournament_id, conn)
                if after is not None:
                    conn.send_text(after)  # the reveal reaches everyone
                continue
            seen, frame = made
            if seen != watch.seen or after is not None:
                watch.seen = seen
                conn.send_text(frame)
                self.frames += 1
            if after is not None:
                conn.send_text(after)

    async def _push_final(self, tournament_id: int, closed: dict[str, Any]) -> None:
        room = self._room(tournament_id)
        try:
            async with room.turn:  # once the called-off round has stopped
                await self._push(tournament_id, closed)
        except Exception as exc:
            if not faults.report(exc, "closing push"):
                log.exception("closing push for tournament %s failed", tournament_id)
        finally:
            asyncio.get_running_loop().call_soon(self._tidy, tournament_id)


class _Frames:
    """The frames of one push round: each window's frame and what it shows, built from
    parts made once per round (PROTOCOL.md `standings`, byte for byte what
    `protocol.standings_message` gives): each row's JSON and look, by row object (a
    leaderboard hands out the same `Standing` while a row does not change), and the
    message's head for each moment of the board."""

    def __init__(self, tournament_id: int) -> None:
        self.tournament_id = tournament_id
        self.made: dict[WindowKey, tuple[tuple[Any, ...], bytes]] = {}
        self._rows: dict[int, tuple[Row, bytes, tuple[Any, ...]]] = {}
        self._heads: dict[tuple[int, int, int, bool], bytes] = {}

    def add(self, views: dict[WindowKey, View]) -> None:
        made = self.made
        for key, view in views.items():
            made[key] = self._made(view)

    def _made(self, view: View) -> tuple[tuple[Any, ...], bytes]:
        cache = self._rows
        parts, looks = [], []
        for r in view.rows:
            got = cache.get(id(r))
            if got is None:  # (the row is kept in the value: its id stays its own)
                row = protocol.standing_row(r, view.par, view.club_of)
                got = cache[id(r)] = (r, orjson.dumps(row), _look(r))
            parts.append(got[1])
            looks.append(got[2])
        gap = view.gap_after
        tail = b"]" if gap is None else b'],"gap_after":%d' % gap
        clubs = None if view.clubs is None else orjson.dumps(view.clubs)  # v1.4: a battle's
        tail += b"}" if clubs is None else b',"clubs":' + clubs + b"}"
        frame = self._head(view) + b",".join(parts) + tail
        return (view.final, gap, _pars(view), clubs, *looks), frame

    def _head(self, view: View) -> bytes:
        key = (view.version, view.now_ms, view.total, view.final)
        head = self._heads.get(key)
        if head is None:
            whole = orjson.dumps(
                {
                    "type": "standings",
                    "tournament": self.tournament_id,
                    "final": view.final,
                    "total": view.total,
                    "version": view.version,
                    "server_time": timing.iso_of_epoch_ms(view.now_ms),
                }
            )
            head = self._heads[key] = whole[:-1] + b',"rows":['
        return head
