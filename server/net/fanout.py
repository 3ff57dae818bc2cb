"""Standings pushes: coalesced per tournament, broadcast without waiting on slow clients."""

from __future__ import annotations

import asyncio
import logging
import time
from collections import defaultdict
from typing import Any

import orjson

from server.competition.standings import Standings
from server.domain.model import TournamentInfo
from server.net import protocol
from server.net.transport import WsConnection, broadcast

log = logging.getLogger("samedeal.fanout")
MIN_INTERVAL_S = 0.25  # at most 4 standings pushes per second per tournament


class Fanout:
    """The server's event sink (competition.events.Events): standings and closes pushed to
    the connections subscribed to a tournament."""

    def __init__(self, standings: Standings, min_interval: float = MIN_INTERVAL_S) -> None:
        self.standings = standings
        self.min_interval = min_interval
        self.subscribers: dict[int, set[WsConnection]] = defaultdict(set)
        self._pending: dict[int, asyncio.Task[None]] = {}
        self._last: dict[int, float] = {}

    def subscribe(self, tournament_id: int, conn: WsConnection) -> None:
        self.subscribers[tournament_id].add(conn)

    def unsubscribe(self, tournament_id: int, conn: WsConnection) -> None:
        self.subscribers[tournament_id].discard(conn)

    def drop(self, conn: WsConnection) -> None:
        for subs in self.subscribers.values():
            subs.discard(conn)

    def standings_changed(self, tournament_id: int) -> None:
        """Standings may have changed: push once soon, coalescing further changes."""
        if not self.subscribers.get(tournament_id) or tournament_id in self._pending:
            return
        task = asyncio.get_running_loop().create_task(self._push_later(tournament_id))
        self._pending[tournament_id] = task

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

    async def _push(self, tournament_id: int, extra: list[dict[str, Any]] | None = None) -> None:
        rows, final = await self.standings.table(tournament_id)
        messages = [protocol.standings_message(tournament_id, rows, final), *(extra or [])]
        subs = list(self.subscribers.get(tournament_id, ()))
        for message in messages:
            broadcast(subs, orjson.dumps(message))

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

    async def _push_final(self, tournament_id: int, closed: dict[str, Any]) -> None:
        try:
            await self._push(tournament_id, [closed])
        except Exception:
            log.exception("closing push for tournament %s failed", tournament_id)
