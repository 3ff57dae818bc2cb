"""Standings pushes (PROTOCOL.md v1.1 windows): each subscriber watches a window of a
tournament's standings (the top rows and the rows around its own entry); after a change a
push is computed at most 4 times a second per tournament, and a subscriber gets a frame
only when the rows of its window changed (the running clocks of playing rows excepted:
clients advance those from `server_time`). A congested client misses a push and gets the
latest with the next change. The close pushes the final window and the reveal to all."""

from __future__ import annotations

import asyncio
import logging
import time
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

import orjson

from server.competition.standings import Standings, View
from server.domain import timing
from server.domain.model import Status, TournamentInfo
from server.domain.ranking import Standing
from server.net import protocol
from server.net.transport import WsConnection

log = logging.getLogger("samedeal.fanout")
MIN_INTERVAL_S = 0.3  # at most 4 standings pushes per second per tournament (3.3)
SLICE = 64  # subscribers served between two yields to the event loop
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


def _look(r: Standing) -> tuple[Any, ...]:
    time_ms = None if r.status == PLAYING else r.time_ms
    return (r.rank, r.player, r.status, r.progress, r.resets, r.score, time_ms)


class Fanout:
    """The server's event sink (competition.events.Events): standings windows and closes
    pushed to the connections subscribed to a tournament."""

    def __init__(self, standings: Standings, min_interval: float = MIN_INTERVAL_S) -> None:
        self.standings = standings
        self.min_interval = min_interval
        self.subscribers: dict[int, dict[WsConnection, Watch]] = defaultdict(dict)
        self._pending: dict[int, asyncio.Task[None]] = {}
        self._last: dict[int, float] = {}
        self.pushes = 0  # push rounds computed (for benches)
        self.frames = 0  # standings frames sent

    def subscribe(self, tournament_id: int, conn: WsConnection, watch: Watch) -> None:
        """Watch a window; `watch.seen` is what the subscribe reply showed. A connection
        lost meanwhile (the reply was awaited) is not kept."""
        if not getattr(conn, "gone", False):
            self.subscribers[tournament_id][conn] = watch

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
        subscriber."""
        task = self._pending.pop(tournament_id, None)
        if task is not None:
            task.cancel()
        closed = {"type": "closed", "tournament": tournament_id, "seed": seed, "log_root": log_root}
        asyncio.get_running_loop().create_task(self._push_final(tournament_id, closed))

    # -- pushing -----------------------------------------------------------------
    async def _push_later(self, tournament_id: int) -> None:
        try:
            wait = self._last.get(tournament_id, 0.0) + self.min_interval - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            self._pending.pop(tournament_id, None)  # changes from now on schedule anew
            self._last[tournament_id] = time.monotonic()
            await self._push(tournament_id)
        except Exception:
            log.exception("standings push for tournament %s failed", tournament_id)
        finally:  # after a failure before the pop; never another task's registration
            if self._pending.get(tournament_id) is asyncio.current_task():
                del self._pending[tournament_id]

    async def _push(self, tournament_id: int, then: dict[str, Any] | None = None) -> None:
        """Each subscriber's window where it changed (all of them when `then` follows),
        SLICE subscribers at a time: the windows of a slice are read together, and the
        loop yields between slices, so no act waits for a whole round of a big tournament.
        Each row's JSON is made once per round, whatever the number of windows showing it."""
        subs = self.subscribers.get(tournament_id)
        if not subs:
            return
        self.pushes += 1
        maker = _Frames(tournament_id)
        after = None if then is None else orjson.dumps(then)
        items = list(subs.items())
        for start in range(0, len(items), SLICE):
            if start:
                await asyncio.sleep(0)
            part = items[start : start + SLICE]
            wanted = list({w.key for _, w in part} - maker.made.keys())
            if wanted:
                maker.add(await self.standings.windows(tournament_id, wanted))
            self._send(subs, part, maker, after)

    def _send(
        self,
        subs: dict[WsConnection, Watch],
        part: list[tuple[WsConnection, Watch]],
        maker: _Frames,
        after: bytes | None,
    ) -> None:
        for conn, watch in part:
            if getattr(conn, "gone", False):
                subs.pop(conn, None)
                continue
            made = maker.made.get(watch.key)
            if conn.congested or made is None:  # (made is None: it subscribed meanwhile)
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
            await self._push(tournament_id, closed)
        except Exception:
            log.exception("closing push for tournament %s failed", tournament_id)


class _Frames:
    """The frames of one push round: each window's frame and what it shows, built from
    rows serialised once per round (PROTOCOL.md `standings`, byte for byte what
    `protocol.standings_message` gives)."""

    def __init__(self, tournament_id: int) -> None:
        self.tournament_id = tournament_id
        self.made: dict[WindowKey, tuple[tuple[Any, ...], bytes]] = {}
        self._rows: dict[Standing, bytes] = {}
        self._times: dict[int, str] = {}

    def add(self, views: dict[WindowKey, View]) -> None:
        for key, view in views.items():
            self.made[key] = (seen_of(view), self._frame(view))

    def _frame(self, view: View) -> bytes:
        when = self._times.get(view.now_ms)
        if when is None:
            when = self._times[view.now_ms] = timing.iso_of_epoch_ms(view.now_ms)
        head = orjson.dumps(
            {
                "type": "standings",
                "tournament": self.tournament_id,
                "final": view.final,
                "total": view.total,
                "version": view.version,
                "server_time": when,
            }
        )
        rows = b",".join(self._row(r) for r in view.rows)
        gap = b"" if view.gap_after is None else b',"gap_after":%d' % view.gap_after
        return head[:-1] + b',"rows":[' + rows + b"]" + gap + b"}"

    def _row(self, r: Standing) -> bytes:
        made = self._rows.get(r)
        if made is None:
            made = self._rows[r] = orjson.dumps(protocol.row_of(r))
        return made
