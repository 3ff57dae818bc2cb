"""The competition layer assembled: one object per concept, sharing one store, one clock
and one event sink.

    players     registration, tokens                       (players.py)
    catalogue   tournaments, seeds, creation, reveal       (catalogue.py)
    tournaments one runtime object per live tournament      (tournaments.py, tournament.py)
    games       live games in memory, rebuilt from logs    (gamecache.py, live.py)
    play        join, state, act, hint, time out           (play.py)
    standings   live standings                             (standings.py)
    exports     records and bundles after the close        (exports.py)
    lifecycle   the clock: open, close, time out, refresh  (lifecycle.py)
    peers       what other nodes on the database changed   (peers.py)
    devices     v1.4 accounts: devices, signing out        (devices.py)
    links       v1.4 accounts: linking a new device        (links.py)
    accounts    v1.4 accounts: deleting one                (accounts.py)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from server.competition.accounts import Accounts
from server.competition.catalogue import Catalogue
from server.competition.devices import Devices
from server.competition.events import Events, NoEvents
from server.competition.exports import Exports
from server.competition.gamecache import LiveGames
from server.competition.lifecycle import Lifecycle
from server.competition.links import Links
from server.competition.peers import Peers
from server.competition.play import Play
from server.competition.players import Players
from server.competition.standings import Standings
from server.domain.timing import utcnow
from server.store.repository import Store


@dataclass(frozen=True, slots=True)
class Competition:
    """Every protocol request maps to one method of one of these parts."""

    store: Store
    players: Players
    catalogue: Catalogue
    games: LiveGames
    play: Play
    standings: Standings
    exports: Exports
    lifecycle: Lifecycle
    peers: Peers
    devices: Devices
    links: Links
    accounts: Accounts

    @classmethod
    def build(
        cls,
        store: Store,
        events: Events | None = None,
        now: Callable[[], datetime] = utcnow,
        *,
        catalogue: Catalogue | None = None,
        standings: Standings | None = None,
    ) -> Competition:
        """The parts wired together. A listener that reads standings (the fan-out) is
        made from `catalogue` and `standings` before it is passed as `events`."""
        sink = events if events is not None else NoEvents()
        catalogue = catalogue or Catalogue(store, now)
        catalogue.tournaments.bind(sink)
        standings = standings or Standings(store, catalogue, now)
        games = LiveGames(store, catalogue)
        play = Play(store, catalogue, games, now)
        exports = Exports(store, catalogue)
        lifecycle = Lifecycle(store, catalogue, play, exports, now)
        players = Players(store, now)
        devices = Devices(store, players, now)
        peers = Peers(store, catalogue, lifecycle, devices)
        return cls(
            store=store,
            players=players,
            catalogue=catalogue,
            games=games,
            play=play,
            standings=standings,
            exports=exports,
            lifecycle=lifecycle,
            peers=peers,
            devices=devices,
            links=Links(store, devices, now),
            accounts=Accounts(store, devices, play, peers.renamed, now),
        )
