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
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import orjson

from server.competition.standings import Standings, View
from server.domain import timing
from server.domain.model import Status, TournamentInfo
from server.domain.ranking import Row
from server.net import protocol
from server.net.transport import WsConnection

log = logging.getLogger("samedeal.fanout")
MIN_INTERVAL_S = 0.3  # at most 4 standings pushes per second per tournament (3.3)
LOOP_SHARE = 0.2  # push rounds are spaced so that they hold the event loop at most this
BATCH = 4  # subscribers whose windows are read together
SLICE_S = 0.001  # the longest a push holds the event loop before it yields
PLAYING = Status.PLAYING

WindowKey = tuple[int, int, str | None]  # (top, around, player)


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
    """What a window shows, less the running clocks (a client advances those)."""
    return (view.final, view.gap_after, *(_look(r) for r in view.rows))


def _look(r: Row) -> tuple[Any, ...]:
    if r.status == PLAYING:  # its clock runs on at the client
        return (r.rank, r.player, r.status, r.progress, r.resets, r.score)
    return r


class Fanout:
    """The server's event sink (competition.events.Events): standings windows and closes
    pushed to the connections subscribed to a tournament."""

    def __init__(
        self,
        standings: Standings,
        min_interval: float = MIN_INTERVAL_S,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        self.standings = standings
        self.min_interval = min_interval
        self.clock = clock  # measures how long a round holds the loop
        self.subscribers: dict[int, dict[WsConnection, Watch]] = defaultdict(dict)
        self._pending: dict[int, asyncio.Task[None]] = {}  # the next round, waiting
        self._running: dict[int, asyncio.Task[None]] = {}  # the round being pushed
        self._turns: dict[int, asyncio.Lock] = defaultdict(asyncio.Lock)  # one at a time
        self._last: dict[int, float] = {}  # when the last round ended
        self._spacing: dict[int, float] = {}  # from the end of a round to the next
        self._waiting: set[WsConnection] = set()  # congested subscribers a round waits for
        self.pushes = 0  # push rounds computed (for benches)
        self.frames = 0  # standings frames sent
        self.longest_hold = 0.0  # the longest one slice held the loop (for benches)

    def subscribe(self, tournament_id: int, conn: WsConnection, watch: Watch) -> None:
        """Watch a window; `watch.seen` is what the subscribe reply showed. A connection
        lost meanwhile (the reply was awaited) is not kept."""
        if not getattr(conn, "gone", False):
            self.subscribers[tournament_id][conn] = watch

    def watching(self, tournament_id: int, conn: WsConnection) -> bool:
        """Whether the connection is subscribed to the tournament."""
        return conn in self.subscribers.get(tournament_id, ())

    def unsubscribe(self, tournament_id: int, conn: WsConnection) -> None:
        self.subscribers[tournament_id].pop(conn, None)

    def drop(self, conn: WsConnection) -> None:
        for subs in self.subscribers.values():
            subs.pop(conn, None)

    # -- Events ----------------------------------------------------------------
    def standings_changed(self, tournament_id: int) -> None:
        """Standings may have changed: push once soon, coalescing further changes."""
        if not self.subscribers.get(tournament_id) or tournament_id in self._pending:
            return
        task = asyncio.get_running_loop().create_task(self._push_later(tournament_id))
        self._pending[tournament_id] = task

    def tournament_changed(self, tournament: TournamentInfo) -> None:
        """Created or opened: nothing to push (the lobby polls `tournaments`)."""

    def tournament_closed(self, tournament_id: int, seed: str, log_root: str) -> None:
        """Final standings, then the revealed seed and the receipts' root, to every
        subscriber: the round waiting and the round being pushed are called off, so no
        window read before the close follows the final one."""
        for task in (self._pending.pop(tournament_id, None), self._running.get(tournament_id)):
            if task is not None:
                task.cancel()
        closed = protocol.closed_message(tournament_id, seed, log_root)
        asyncio.get_running_loop().create_task(self._push_final(tournament_id, closed))

    # -- pushing -----------------------------------------------------------------
    async def _push_later(self, tournament_id: int) -> None:
        """The next round: after the round being pushed (never two of a tournament at
        once: a later one could send a window older than an earlier one's), `_spacing`
        after its end."""
        try:
            async with self._turns[tournament_id]:
                spacing = self._spacing.get(tournament_id, self.min_interval)
                wait = self._last.get(tournament_id, 0.0) + spacing - time.monotonic()
                if wait > 0:
                    await asyncio.sleep(wait)
                self._pending.pop(tournament_id, None)  # changes from now on schedule anew
                self._running[tournament_id] = asyncio.current_task()  # type: ignore[assignment]
                try:
                    held = await self._push(tournament_id)
                finally:
                    del self._running[tournament_id]
                    self._last[tournament_id] = time.monotonic()
                self._spacing[tournament_id] = max(self.min_interval, held / LOOP_SHARE)
        except Exception:
            log.exception("standings push for tournament %s failed", tournament_id)
        finally:  # after a failure before the pop; never another task's registration
            if self._pending.get(tournament_id) is asyncio.current_task():
                del self._pending[tournament_id]

    async def _push(self, tournament_id: int, then: dict[str, Any] | None = None) -> float:
        """Each subscriber's window where it changed (all of them when `then` follows),
        BATCH subscribers at a time (their windows read together), yielding to the loop
        once a slice has held it SLICE_S: an act waits for at most about one slice, not a
        round. Each row's JSON is made once per round, whatever the windows showing it.
        Returns how long the round held the loop (its slices, in seconds): the next round
        waits so that rounds hold it at most LOOP_SHARE of the time, so a crowded
        tournament's standings refresh less often instead of slowing its play."""
        subs = self.subscribers.get(tournament_id)
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
        try:
            async with self._turns[tournament_id]:  # once the called-off round has stopped
                await self._push(tournament_id, closed)
        except Exception:
            log.exception("closing push for tournament %s failed", tournament_id)


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
                got = cache[id(r)] = (r, orjson.dumps(protocol.row_of(r)), _look(r))
            parts.append(got[1])
            looks.append(got[2])
        gap = view.gap_after
        tail = b"]}" if gap is None else b'],"gap_after":%d}' % gap
        frame = self._head(view) + b",".join(parts) + tail
        return (view.final, gap, *looks), frame

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
