"""What this node learns from the others sharing its database: the notices of the
store's listener (PostgreSQL LISTEN/NOTIFY), each turned into a change record of its
tournament (tournament.py), and a resync when notices may have been missed.

- an entry's new figures: `EntryChanged(elsewhere=True)` (a game cached here that is behind
  is dropped; the standings take the new row);
- a new entry: `Joined` with its row;
- a tournament created, opened or closed: the catalogue reads it again (lifecycle
  `learn`); a close is announced to this node's subscribers;
- devices revoked (v1.4 accounts): their connections here are signed out.
"""

from __future__ import annotations

from server.competition.catalogue import Catalogue
from server.competition.devices import Devices
from server.competition.lifecycle import Lifecycle
from server.competition.tournament import EntryChanged, Joined, Reread
from server.domain.model import (
    DevicesNotice,
    EntryNotice,
    JoinNotice,
    Notice,
    RenamedNotice,
    TournamentNotice,
)
from server.store.repository import Store


class Peers:
    """The store listener's handler (store.pg_coordination.NoticeHandler)."""

    def __init__(
        self,
        store: Store,
        catalogue: Catalogue,
        lifecycle: Lifecycle,
        devices: Devices | None = None,
    ) -> None:
        self.store = store
        self.devices = devices
        self.tournaments = catalogue.tournaments
        self.lifecycle = lifecycle
        self.resyncs = 0

    async def notice(self, notice: Notice) -> None:
        if isinstance(notice, EntryNotice):
            n = notice
            change = EntryChanged(n.entry_id, n.seq, n.figures, elsewhere=True)
            self.tournaments.receive(n.tournament_id, change)
        elif isinstance(notice, JoinNotice):
            await self._joined(notice)
        elif isinstance(notice, TournamentNotice):
            await self.lifecycle.learn(notice.tournament_id)
        elif isinstance(notice, RenamedNotice):
            self.renamed(notice.tournament_id)
        elif isinstance(notice, DevicesNotice) and self.devices is not None:
            self.devices.signed_out(notice.device_ids)

    def renamed(self, tournament_id: int) -> None:
        """A player of the tournament was renamed: its table is read again, its bundle
        rebuilt."""
        self.tournaments.bundle_changed(tournament_id)
        self.tournaments.receive(tournament_id, Reread())

    async def _joined(self, n: JoinNotice) -> None:
        t = self.tournaments.get(n.tournament_id)
        if t is None or t.table.knows(n.entry_id):
            return  # not held here (read when needed), or joined on this node
        entry = await self.store.entry_by_id(n.entry_id)
        if entry is not None:
            self.tournaments.receive(n.tournament_id, Joined(entry))

    async def resync(self) -> None:
        """After (re)connecting the listener: tournaments and standings read again."""
        self.resyncs += 1
        await self.lifecycle.refresh()
        if self.devices is not None:
            await self.devices.recheck()
        for t in self.tournaments.live():
            t.receive(Reread())
