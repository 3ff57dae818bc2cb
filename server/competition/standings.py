"""Live standings of each tournament: running games ranked on their time so far
(COMPETITION.md), final once the tournament is closed."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING

from server.competition.catalogue import CLOSED, Catalogue
from server.domain import timing
from server.domain.model import EntryInfo, Status
from server.domain.ranking import Result, Standing, standings
from server.store.repository import Store

if TYPE_CHECKING:
    from server.competition.live import LiveGame


class Standings:
    """The standings of a tournament as they stand now."""

    def __init__(self, store: Store, catalogue: Catalogue, now: Callable[[], datetime]) -> None:
        self.store = store
        self.catalogue = catalogue
        self.now = now

    def entry_changed(self, entry: EntryInfo) -> None:
        """A new entry (its row is in the store)."""

    def game_changed(self, live: LiveGame) -> None:
        """An entry's figures or status changed (its row is in the store)."""

    def tournament_changed(self, tournament_id: int) -> None:
        """Many rows may have changed at once (a close, a node's update)."""

    async def table(self, tournament_id: int) -> tuple[list[Standing], bool]:
        """Every row (running games on their time so far) and whether they are final."""
        t = await self.catalogue.find(tournament_id)
        now = self.now()
        results = []
        for e in await self.store.entries(t.id):
            time_ms = e.time_ms
            if e.status == Status.PLAYING:
                time_ms = timing.ms_between(e.started_at, min(now, e.deadline))
            results.append(Result(e.player_name, e.status, e.progress, e.resets, time_ms, e.score))
        return standings(results), t.status == CLOSED
