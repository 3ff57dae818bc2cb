"""The competition layer assembled: one object per concept, sharing one store, one clock
and one event sink.

    players     players and bots: registration, tokens      (players.py)
    devices     v1.4 accounts: devices, signing out         (devices.py)
    links       v1.4 accounts: linking a new device         (links.py)
    accounts    v1.4 accounts: deleting one                 (accounts.py)
    passkeys    v1.4 accounts: passkeys (WebAuthn)          (passkeys.py)
    clubs       v1.4 clubs: members, leaders, join codes    (clubs.py)
    club_events v1.4 club events: viewers, limits, club entry (club_events.py)
    catalogue   tournaments, seeds, creation, reveal        (catalogue.py)
    games       live games in memory, rebuilt from logs     (live_games.py, live_game.py)
    play        join, state, act, hint, time out            (play.py)
    standings   live standings, pages, results.csv          (standings/)
    exports     records and the reveal after the close      (exports.py)
    bundles     closed tournaments' bundles as bytes        (bundles.py)
    lifecycle   the clock: open, close, time out, refresh   (lifecycle.py)
    schedules   schedules and their occurrences             (schedules.py)
    ratings     leaderboards, player pages, rebuild         (ratings.py)
    fairplay    disqualify, the organiser's report          (fairplay.py)
    beacons     beacon tournaments' waiting for their round (beacons.py)
    peers       what other nodes on the database changed    (peers.py)
    health      /healthz and /metrics: the database's answer (health.py)

Every transport (WebSocket, HTTP, the operator's command line) calls
`competition.<part>.<verb>` and nothing below it. The operator's verbs (create, close,
schedules, fair play) trust their caller: the protocol checks who may send what once
(net/access.py); the command line is the operator's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from server.competition.accounts import Accounts
from server.competition.beacon_policy import BeaconConfig
from server.competition.beacons import Beacons
from server.competition.bundles import BundleCache
from server.competition.catalogue import Catalogue
from server.competition.club_events import ClubEvents
from server.competition.clubs import Clubs
from server.competition.devices import Devices
from server.competition.events import Events, NoEvents
from server.competition.exports import Exports
from server.competition.fairplay import FairPlay
from server.competition.health import Health
from server.competition.lifecycle import Lifecycle
from server.competition.links import TTL_S as LINK_TTL_S
from server.competition.links import Links
from server.competition.live_games import LiveGames
from server.competition.passkeys import Passkeys
from server.competition.peers import Peers
from server.competition.play import Play
from server.competition.players import Players
from server.competition.ratings import Ratings
from server.competition.schedules import Schedules
from server.competition.standings.reading import Standings
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
    bundles: BundleCache
    lifecycle: Lifecycle
    schedules: Schedules
    ratings: Ratings
    fairplay: FairPlay
    beacons: Beacons
    peers: Peers
    devices: Devices
    links: Links
    accounts: Accounts
    passkeys: Passkeys
    clubs: Clubs
    club_events: ClubEvents
    health: Health

    @classmethod
    def build(
        cls,
        store: Store,
        events: Events | None = None,
        now: Callable[[], datetime] = utcnow,
        *,
        catalogue: Catalogue | None = None,
        standings: Standings | None = None,
        beacon_config: BeaconConfig | None = None,
        link_ttl_s: int = LINK_TTL_S,
    ) -> Competition:
        """The parts wired together. A listener that reads standings (the fan-out) is
        made from `catalogue` and `standings` before it is passed as `events` (the
        catalogue then made with `beacon_config`, which is for a catalogue made here).
        `link_ttl_s` is a device link's life (serve --link-code-ttl)."""
        sink = events if events is not None else NoEvents()
        catalogue = catalogue or Catalogue(store, now, beacon_config=beacon_config)
        catalogue.tournaments.bind(sink)
        standings = standings or Standings(store, catalogue, now)
        games = LiveGames(store, catalogue)
        clubs = Clubs(store, now)
        club_events = ClubEvents(store, clubs)
        play = Play(store, catalogue, games, now, club_events)
        exports = Exports(store, catalogue)
        schedules = Schedules(store, catalogue, now)
        lifecycle = Lifecycle(store, catalogue, play, exports, schedules, now)
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
            bundles=BundleCache(store, catalogue),
            lifecycle=lifecycle,
            schedules=schedules,
            ratings=Ratings(store, now),
            fairplay=FairPlay(store, catalogue, now),
            beacons=lifecycle.beacons,
            peers=peers,
            devices=devices,
            links=Links(store, devices, now, link_ttl_s),
            accounts=Accounts(store, devices, play, peers.renamed, now),
            passkeys=Passkeys(store, devices, now),
            clubs=clubs,
            club_events=club_events,
            health=Health(store),
        )
