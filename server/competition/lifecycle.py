"""The lifecycle clock of a server: open tournaments at their start, close them at their
end (ending running games as timed out and revealing the seed), time out games whose
deadline passed, and learn of tournaments created, opened or closed elsewhere.

Only a server runs `tick`; the operator's command line only creates, closes and lists.
Where several nodes share the database, only the node holding the leader's lock opens,
closes and times out (and each of those is a conditional update that exactly one caller
wins, so even two leaders for a moment do each thing once); every node learns of the
changes from notices (`learn`), and only SQLite's single node polls the store.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from datetime import datetime

from server.competition.catalogue import CLOSED, Catalogue
from server.competition.errors import CompetitionError
from server.competition.events import Events
from server.competition.exports import Exports
from server.competition.live import TIMED_OUT, LiveGames
from server.competition.play import Play
from server.competition.ratings import rate_closed
from server.competition.series import Series
from server.competition.standings import Standings
from server.domain.model import PlayerInfo, TournamentInfo, TournamentStatus
from server.store.repository import Store

log = logging.getLogger("samedeal.lifecycle")


class Lifecycle:
    """Opening, closing and timing out, by the clock or on an operator's request."""

    def __init__(
        self,
        store: Store,
        catalogue: Catalogue,
        games: LiveGames,
        play: Play,
        standings: Standings,
        exports: Exports,
        events: Events,
        now: Callable[[], datetime],
    ) -> None:
        self.store = store
        self.catalogue = catalogue
        self.games = games
        self.play = play
        self.standings = standings
        self.exports = exports
        self.events = events
        self.now = now
        self.leadership = store.leadership()  # None: this node is the only one
        self._closed: set[int] = set()  # closes announced (or found at the first refresh)
        self._refreshed = False
        self.series = Series(store, catalogue, now)  # series (v1.3) hook

    async def start(self) -> None:
        """Load the tournaments; do at once what fell due while no server ran."""
        await self.refresh()
        await self.tick()

    async def stop(self) -> None:
        if self.leadership is not None:
            await self.leadership.close()

    async def tick(self) -> None:
        """Open, close and time out what is due (the leader); advance running clocks."""
        if not self.store.shared:
            await self.refresh()  # the operator's command line may have changed things
        if self.leadership is None or await self.leadership.leading():
            await self._due()
        for tournament_id in self.standings.advance():  # running clocks passing others
            self.events.standings_changed(tournament_id)

    async def _due(self) -> None:
        now = self.now()
        await self.series.ensure(now)  # series (v1.3) hook: occurrences due now
        for t in self.catalogue.known():
            if t.status == TournamentStatus.SCHEDULED and now >= t.starts_at:
                await self.store.open_tournament(t.id)  # False: another node did
                self.events.tournament_changed(await self.catalogue.reload(t.id))
            if t.status != CLOSED and now >= t.ends_at and t.id not in self.catalogue.closing:
                with contextlib.suppress(CompetitionError):  # closed meanwhile (a notice)
                    await self.close(t.id)
        for e in await self.store.due_entries(now):
            await self.play.expire(e)

    async def learn(self, tournament_id: int) -> None:
        """A tournament changed on some node: read it again and tell the listeners."""
        old = self.catalogue.cached(tournament_id)
        t = await self.catalogue.reload(tournament_id)
        if t.status == CLOSED:
            await self._closed_elsewhere(t)
        elif old is None or old.status != t.status:
            self.events.tournament_changed(t)

    async def refresh(self) -> None:
        """Learn of tournaments created or closed by another process; announce each close
        once (those found closed at the first refresh were announced before)."""
        tournaments = await self.store.tournaments()
        first, self._refreshed = not self._refreshed, True
        for t in tournaments:
            self.catalogue.remember(t)
            if t.status != CLOSED:
                continue
            if first:
                self._closed.add(t.id)
            else:
                await self._closed_elsewhere(t)

    async def _closed_elsewhere(self, t: TournamentInfo) -> None:
        """Announce, once, a close made by another process or node."""
        if t.id in self._closed or t.id in self.catalogue.closing:
            return
        self.games.forget_tournament(t.id)  # rebuilt with their final status
        self.standings.tournament_changed(t.id)
        await self._announce_close(t)
        self._closed.add(t.id)  # once announced (a failure leaves it to the next resync)

    async def close(self, tournament_id: int, by: PlayerInfo | None = None) -> TournamentInfo:
        """Close now: end running games as timed out, freeze standings, reveal the seed.
        `by` is the player asking (None: the clock or the operator's command line)."""
        if by is not None and not by.admin:
            raise CompetitionError("forbidden", "only an operator closes tournaments")
        t = await self.catalogue.find(tournament_id)
        if t.status == CLOSED or t.id in self.catalogue.closing:
            raise CompetitionError("closed", f"tournament {t.id} is already closed")
        self.catalogue.closing.add(t.id)
        try:
            await self._close(t)
            self._closed.add(t.id)  # before `closing` ends: its own notice announces nothing
        finally:
            self.catalogue.closing.discard(t.id)
        t = await self.catalogue.reload(t.id)
        self._closed.add(t.id)
        await self._announce_close(t)
        return t

    async def _close(self, t: TournamentInfo) -> None:
        games = self.games.in_tournament(t.id)
        for g in games:  # wait for acts in flight; new ones see `closing`
            await g.lock.acquire()
        try:
            closed_at = max(self.now(), t.starts_at)
            timed_out = await self.store.close_tournament(t.id, closed_at)
            if timed_out is None:  # closed meanwhile by another process: its figures stand
                timed_out = []
                self.games.forget_tournament(t.id)
            for entry_id, time_ms in timed_out:
                live = self.games.by_entry(entry_id)
                if live is not None:
                    live.status, live.time_ms = TIMED_OUT, time_ms
        finally:
            for g in games:
                g.lock.release()

    async def _announce_close(self, t: TournamentInfo) -> None:
        seed, log_root = await self.exports.reveal(t)
        log.info("tournament %s closed; seed revealed", t.id)
        self.standings.tournament_changed(t.id)
        self.events.tournament_closed(t.id, seed, log_root)
        await rate_closed(self.store, t.id)  # ratings: once per tournament across nodes
