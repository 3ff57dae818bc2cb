"""What this node learns from the others sharing its database: the notices of the
store's listener (PostgreSQL LISTEN/NOTIFY) applied to the caches of this node, and a
resync when notices may have been missed.

- an entry's new summary: a game cached here that is behind is dropped (rebuilt from the
  log when next needed), and the tournament's standings take the new row;
- a new entry: its row joins the standings;
- a tournament created, opened or closed: the catalogue reads it again; a close is
  announced to this node's subscribers.
"""

from __future__ import annotations

from server.competition.catalogue import CLOSED, Catalogue
from server.competition.events import Events
from server.competition.lifecycle import Lifecycle
from server.competition.live import LiveGames
from server.competition.standings import Standings
from server.domain.model import EntryNotice, JoinNotice, Notice, TournamentNotice
from server.store.repository import Store


class Peers:
    """The store listener's handler (store.cluster.NoticeHandler)."""

    def __init__(
        self,
        store: Store,
        catalogue: Catalogue,
        games: LiveGames,
        standings: Standings,
        lifecycle: Lifecycle,
        events: Events,
    ) -> None:
        self.store = store
        self.catalogue = catalogue
        self.games = games
        self.standings = standings
        self.lifecycle = lifecycle
        self.events = events
        self.resyncs = 0

    async def notice(self, notice: Notice) -> None:
        if isinstance(notice, EntryNotice):
            self._entry(notice)
        elif isinstance(notice, JoinNotice):
            await self._joined(notice)
        elif isinstance(notice, TournamentNotice):
            await self.lifecycle.learn(notice.tournament_id)

    def _entry(self, n: EntryNotice) -> None:
        live = self.games.by_entry(n.entry_id)
        # A log only grows: a notice of an older seq (this node's own, arriving late)
        # says nothing new. An act in flight here holds the lock: it brings the game up
        # to date itself (or is refused as a duplicate and reloads it).
        newer = live is not None and (
            n.seq > live.seq or (n.seq == live.seq and n.status != live.status)
        )
        if live is not None and newer and not live.lock.locked():
            self.games.forget(live)
        t = self.catalogue.cached(n.tournament_id)
        if t is not None and t.status == CLOSED:
            return  # the close's final figures are read from the store
        if self.standings.summary_changed(n.tournament_id, n.entry_id, n):
            self.events.standings_changed(n.tournament_id)

    async def _joined(self, n: JoinNotice) -> None:
        if self.standings.knows(n.entry_id):
            return  # joined on this node
        entry = await self.store.entry_by_id(n.entry_id)
        if entry is not None:
            self.standings.entry_changed(entry)
            self.events.standings_changed(n.tournament_id)

    async def resync(self) -> None:
        """After (re)connecting the listener: tournaments and standings read again."""
        self.resyncs += 1
        await self.lifecycle.refresh()
        self.standings.reset()
        for t in self.catalogue.known():
            self.events.standings_changed(t.id)
