"""One tournament at run time: its public facts and lifecycle state, its seed, the games
of its entries in memory, its standings table and its receipts' root; and the typed
changes that are the only way its figures change.

Every change (an action committed here, a join, a timeout, another node's notice, a
clock tick, a close) is one `Change` record given to `Tournament.receive`, which updates
the state and tells the event sink (`Events`) what the fan-out must push. The model is
lila-ws's RoomActor: one `receive` mapping each message to the new state and what to send
on; here the state is mutable (it is touched only from the event loop, between awaits),
and the sink is the "send on".

A closed tournament whose close was announced (its reveal pushed) is retired
(`Tournaments.retire` in tournaments.py): its games are dropped and only its facts, seed
and root stay, in a bounded cache, for late watchers, records and bundles.
"""

from __future__ import annotations

import asyncio
from typing import Any, NamedTuple

from server.competition.events import Events
from server.competition.live_game import LiveGame
from server.competition.standings.table import Table
from server.domain.model import EntryInfo, Figures, TournamentInfo, TournamentStatus

CLOSED = TournamentStatus.CLOSED


# -- changes ------------------------------------------------------------------------
class Joined(NamedTuple):
    """A new entry, committed (here or, read from the store, on another node)."""

    entry: EntryInfo


class Moved(NamedTuple):
    """An action of this game was committed and applied here."""

    game: LiveGame


class EntryChanged(NamedTuple):
    """An entry's row now holds these figures after `seq` actions: a timeout, or a change
    another node made (`elsewhere`: a game cached here that is behind is dropped)."""

    entry_id: int
    seq: int
    figures: Figures
    elsewhere: bool = False


class Reread(NamedTuple):
    """Many rows may have changed (notices may have been missed): read the table again."""


class Ticked(NamedTuple):
    """The clock moved on: running games may pass others or reach their deadline."""


class Changed(NamedTuple):
    """The tournament's public facts changed: created, opened, or read again."""

    info: TournamentInfo


class Closed(NamedTuple):
    """The close is durable: final figures stand, the seed and the root are public."""

    info: TournamentInfo
    seed: str
    log_root: str


class Disqualified(NamedTuple):
    """An entry was disqualified (fair play; here, or on another node): the table is read
    again, with its disqualified left out of the ranking, and watchers get fresh
    standings. `amendment`: made after the close, so the tournament's bundle changed."""

    amendment: bool


class ParAdded(NamedTuple):
    """Pars of a closed tournament's entries were stored (competition/par.py): the table
    is read again (its rows carry par) and the tournament's bundle changed."""


Change = (
    Joined | Moved | EntryChanged | Reread | Ticked | Changed | Closed | Disqualified | ParAdded
)


class Tournament:
    """The runtime state of one tournament (see the module's docstring). Its fields are
    read from outside and written only here: by `receive`, or by the named transitions
    below (learn, begin/end a close, announcing/announce failed, the seed and root once
    known, a beacon round awaited/fetched/failed, bind, retired)."""

    def __init__(self, info: TournamentInfo, table: Table, events: Events) -> None:
        self._info = info
        self._table = table
        self._events = events
        self._seed: bytes | None = None  # the secret: dealing only, never sent before the close
        self._closing = False  # a close of this process is in progress
        self._announced = info.status == CLOSED  # its close was announced (or before our time)
        self._log_root: str | None = None  # the receipts' root, once closed
        self._games: dict[int, LiveGame] = {}  # by entry id
        self._entry_ids: dict[int, int] = {}  # player id -> entry id
        self._load_locks: dict[int, asyncio.Lock] = {}  # by player id
        # A beacon tournament waiting for its round (beacons.py): the fetch (and deal
        # preparation) in flight, and the monotonic time to ask again after a failed one.
        self._beacon_task: asyncio.Task[Any] | None = None
        self._beacon_retry_at = 0.0

    # -- what it holds (read-only from outside) ----------------------------------------
    @property
    def id(self) -> int:
        return self._info.id

    @property
    def info(self) -> TournamentInfo:
        """Its latest public facts (never reopened by a stale read: `learn`)."""
        return self._info

    @property
    def table(self) -> Table:
        """Its standings table."""
        return self._table

    @property
    def seed(self) -> bytes | None:
        """The seed its deals read, once known (`seed_known`); never sent before the close."""
        return self._seed

    @property
    def closing(self) -> bool:
        """A close of this process is in progress (acts are refused meanwhile)."""
        return self._closing

    @property
    def announced(self) -> bool:
        """Its close was announced (or happened before this process knew it)."""
        return self._announced

    @property
    def log_root(self) -> str | None:
        """The receipts' root, once closed and computed (`root_known`)."""
        return self._log_root

    @property
    def beacon_task(self) -> asyncio.Task[Any] | None:
        """The fetch of its beacon round (and deal preparation) in flight, if any."""
        return self._beacon_task

    @property
    def beacon_retry_at(self) -> float:
        """The monotonic time to ask for its beacon round again after a failed fetch."""
        return self._beacon_retry_at

    # -- the one way in ------------------------------------------------------------
    def receive(self, change: Change) -> bool:
        """Apply one change and tell the sink what it means for the outside world;
        whether the sink heard anything (False: the change was old news)."""
        table = self._table
        if isinstance(change, Moved):
            table.game_moved(change.game)
        elif isinstance(change, Joined):
            table.entry_joined(change.entry)
        elif isinstance(change, EntryChanged):
            if self._info.status == CLOSED:
                return False  # the close's final figures are read from the store
            if change.elsewhere:
                self._drop_if_behind(change)
            if not table.figures_changed(change.entry_id, change.seq, change.figures):
                return False
        elif isinstance(change, Ticked):
            if not table.advance():
                return False
        elif isinstance(change, Reread | Disqualified | ParAdded):
            table.reread()
        elif isinstance(change, Changed):
            self.learn(change.info)
            if self._info.status != TournamentStatus.SCHEDULED:
                self.stop_waiting()  # opened (or closed): no beacon round to wait for
            self._events.tournament_changed(self._info)
            return True
        elif isinstance(change, Closed):
            self._info, self._log_root, self._announced = change.info, change.log_root, True
            self.stop_waiting()
            self.forget_games()  # rebuilt with their final status when next asked
            table.reread()
            self._events.tournament_closed(self.id, change.seed, change.log_root)
            return True
        self._events.standings_changed(self._info.id)
        return True

    # -- named transitions --------------------------------------------------------------
    def learn(self, info: TournamentInfo) -> TournamentInfo:
        """Keep `info` as the latest facts (a read made before a close this process
        already knows does not reopen it); the facts kept."""
        if not (self._info.status == CLOSED and info.status != CLOSED):
            self._info = info
        return self._info

    def bind(self, events: Events) -> None:
        """Report its changes to `events` from now on."""
        self._events = events

    def seed_known(self, seed: bytes) -> None:
        """The seed its deals read (a beacon tournament's: once its round is verified)."""
        self._seed = seed

    def begin_close(self) -> None:
        """This process starts closing it: acts are refused until `end_close`."""
        self._closing = True

    def end_close(self) -> None:
        """This process's close ended: done (`Closed` follows) or failed (it may be tried
        again)."""
        self._closing = False

    def announcing(self) -> None:
        """Its close is being announced (before the reveal's awaits: announced once)."""
        self._announced = True

    def announce_failed(self) -> None:
        """The announcement failed: left to the next refresh or resync."""
        self._announced = False

    def root_known(self, log_root: str) -> None:
        """The receipts' root, computed once after the close (it never changes)."""
        self._log_root = log_root

    def beacon_awaited(self, task: asyncio.Task[Any]) -> None:
        """A fetch of its beacon round (and its deal) is in flight."""
        self._beacon_task = task

    def beacon_fetched(self) -> None:
        """The fetch in flight ended (its result is read from the task kept before)."""
        self._beacon_task = None

    def beacon_failed(self, retry_at: float) -> None:
        """No verified round yet: ask again from monotonic time `retry_at`."""
        self._beacon_retry_at = retry_at

    def stop_waiting(self) -> None:
        """Cancel the beacon round's fetch in flight, if any."""
        task, self._beacon_task = self._beacon_task, None
        if task is not None:
            task.cancel()

    def retired(self, table: Table) -> None:
        """Its close was announced: its games are dropped and `table` (fresh, unread)
        replaces its table (tournaments.py `retire`)."""
        self.forget_games()
        self._table = table

    # -- games in memory -------------------------------------------------------------
    def game(self, player_id: int) -> LiveGame | None:
        entry_id = self._entry_ids.get(player_id)
        return None if entry_id is None else self._games.get(entry_id)

    def game_of_entry(self, entry_id: int) -> LiveGame | None:
        return self._games.get(entry_id)

    def games(self) -> list[LiveGame]:
        return list(self._games.values())

    def load_lock(self, player_id: int) -> asyncio.Lock:
        """The lock under which the player's game is loaded or first dealt."""
        return self._load_locks.setdefault(player_id, asyncio.Lock())

    def keep(self, live: LiveGame) -> None:
        self._games[live.entry.id] = live
        self._entry_ids[live.entry.player_id] = live.entry.id

    def forget(self, live: LiveGame) -> None:
        """Drop one game (it is rebuilt from the log when next needed)."""
        if self._entry_ids.get(live.entry.player_id) == live.entry.id:
            del self._entry_ids[live.entry.player_id]
        self._games.pop(live.entry.id, None)

    def forget_games(self) -> None:
        self._games.clear()
        self._entry_ids.clear()
        self._load_locks = {k: v for k, v in self._load_locks.items() if v.locked()}

    def _drop_if_behind(self, n: EntryChanged) -> None:
        """A log only grows: a notice of an older seq (this node's own, arriving late)
        says nothing new. An act in flight here holds the lock: it brings the game up to
        date itself (or is refused as a duplicate and reloads it)."""
        live = self._games.get(n.entry_id)
        if live is None or live.lock.locked():
            return
        if n.seq > live.seq or (n.seq == live.seq and n.figures.status != live.status):
            self.forget(live)
