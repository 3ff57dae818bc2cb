"""The tournaments this process holds at run time: one `Tournament` object per live
(scheduled or open) tournament, and a bounded cache of closed ones.

A tournament lives here from its creation (or from when this process first reads it)
until its close is announced (`retire`): then its games and standings are dropped and
it moves to the cache of closed tournaments, which keeps at most CLOSED_KEPT of them
(facts, seed and receipts' root: what late watchers, records and bundles need; the rest
is read from the store). So a process running one tournament after another holds only
the live ones.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from datetime import datetime

from server.competition.events import Events, NoEvents
from server.competition.standings.table import Table
from server.competition.tournament import (
    CLOSED,
    Change,
    Closed,
    Disqualified,
    ParAdded,
    Tournament,
)
from server.domain.model import TournamentInfo
from server.store.repository import Store

CLOSED_KEPT = 16  # closed tournaments kept in memory (least recently used dropped)


class Tournaments:
    """Runtime objects by tournament id; `receive` routes a change to its tournament."""

    def __init__(self, store: Store, now: Callable[[], datetime]) -> None:
        self.store = store
        self.now = now
        self.events: Events = NoEvents()  # bound by Competition.build
        self._live: dict[int, Tournament] = {}
        self._closed: OrderedDict[int, Tournament] = OrderedDict()
        self._amended: list[Callable[[int], None]] = []  # told of every amendment

    def on_amended(self, listener: Callable[[int], None]) -> None:
        """Tell `listener` the id of every tournament amended after its close (fair play)
        or given pars (par): its bundle changed, whether or not it is in memory."""
        self._amended.append(listener)

    def bind(self, events: Events) -> None:
        """Report every tournament's changes to `events` from now on."""
        self.events = events
        for t in (*self._live.values(), *self._closed.values()):
            t.bind(events)

    def __len__(self) -> int:
        return len(self._live) + len(self._closed)

    def get(self, tournament_id: int) -> Tournament | None:
        """The tournament's object when in memory (live, or closed and cached)."""
        t = self._live.get(tournament_id)
        if t is None and (t := self._closed.get(tournament_id)) is not None:
            self._closed.move_to_end(tournament_id)
        return t

    def live(self) -> list[Tournament]:
        """The live (not retired) tournaments, by id."""
        return [self._live[k] for k in sorted(self._live)]

    def add(self, info: TournamentInfo) -> Tournament:
        """The object of a tournament read from the store or just created (the one in
        memory, given the latest facts, when there is one)."""
        t = self.get(info.id)
        if t is not None:
            t.learn(info)
            return t
        t = Tournament(info, Table(info.id, self.store, self.now, info.battle), self.events)
        if info.status == CLOSED:  # closed before this process knew it: announced then
            self._cache(t)
        else:
            self._live[info.id] = t
        return t

    def bundle_changed(self, tournament_id: int) -> None:
        """A closed tournament's bundle changed otherwise (v1.4: a player's name erased)."""
        for listener in self._amended:
            listener(tournament_id)

    def receive(self, tournament_id: int, change: Change) -> bool:
        """The creation-to-close seam for a caller holding a tournament's id: the change
        goes to its object's `Tournament.receive` (play.act, holding the object, gives its
        `Moved` there directly; the lifecycle its `Ticked`). Nothing happens for a
        tournament not in memory (its figures are read when next asked), but the
        amendment listeners hear of an amendment or of pars added."""
        bundle_changed = isinstance(change, Disqualified) and change.amendment
        if bundle_changed or isinstance(change, ParAdded):
            for listener in self._amended:
                listener(tournament_id)
        t = self.get(tournament_id)
        if t is None:
            return False
        heard = t.receive(change)
        if isinstance(change, Closed):
            self.retire(t)
        return heard

    def retire(self, t: Tournament) -> None:
        """A closed and announced tournament leaves the live ones for the bounded cache
        of closed ones, with a fresh (unread) table: its games are dropped."""
        if self._live.get(t.id) is t:
            del self._live[t.id]
        table = Table(t.id, self.store, self.now, t.info.battle)
        table.base = t.table.base + (t.table.board.version + 1 if t.table.board else 0)
        t.retired(table)
        self._cache(t)

    def _cache(self, t: Tournament) -> None:
        self._closed[t.id] = t
        self._closed.move_to_end(t.id)
        while len(self._closed) > CLOSED_KEPT:
            self._closed.popitem(last=False)
