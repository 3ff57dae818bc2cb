"""The tournament catalogue: creating tournaments (seed, commitment, prepared deal), the
tournaments this process knows, their secret seeds, and revealing them after the close.

The seed is drawn here and leaves this module only to deal (in memory) or once the
tournament is closed (`revealed_seed`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from server import rng
from server.competition.beacon_policy import BeaconConfig, plan
from server.competition.club_events import full
from server.competition.compute import Compute, prepare_deal, shared
from server.competition.errors import CompetitionError
from server.competition.tournament import CLOSED, Changed, Tournament
from server.competition.tournaments import Tournaments
from server.domain import timing, tournament_options
from server.domain.club_events import ClubEventsFull, EventFields
from server.domain.model import NewTournament, TournamentInfo, TournamentStatus
from server.domain.schedule import SeriesFields
from server.games import RULES, GameRules
from server.games.base import PreparedDeal
from server.store import clubs as stored_clubs
from server.store.repository import Store

log = logging.getLogger("samedeal.catalogue")
DEMO_LOCK = 0x5A3D_EA1_0002  # the advisory lock around "create the demo when empty"


@dataclass(frozen=True, slots=True)
class TournamentSpec:
    """What an operator asks for; validated by `Catalogue.create`."""

    name: str
    game: str
    options: dict[str, Any] | None
    ends_at: datetime
    starts_at: datetime | None = None
    time_limit_s: int | None = None
    join_until: datetime | None = None
    beacon: dict[str, Any] | None = None  # {"network": N}: a public beacon (beacons.py)
    series: SeriesFields = field(default_factory=SeriesFields)  # its schedule, conditions, rated
    event: EventFields = field(default_factory=EventFields)  # club events (v1.4)
    limits: tuple[int, ...] = ()  # the clubs whose limits it must fit (a non-admin's)


def default_demo_spec(now: datetime) -> TournamentSpec:
    """The demo Gaps tournament an empty database gets: open for 24 hours."""
    return TournamentSpec(
        name="Demo Gaps",
        game="gaps",
        options={"redeals": 2},
        starts_at=now,
        ends_at=now + timedelta(hours=24),
        time_limit_s=1800,
    )


class Catalogue:
    """Tournaments by id: the runtime objects of `Tournaments`, read from the store
    when not in memory."""

    def __init__(
        self,
        store: Store,
        now: Callable[[], datetime],
        compute: Compute | None = None,
        beacon_config: BeaconConfig | None = None,
    ) -> None:
        self.store = store
        self.now = now
        self.tournaments = Tournaments(store, now)
        self.compute = compute or shared()  # the deal searches, off the event loop
        self._beacon_config = beacon_config or BeaconConfig()  # serve's --beacon-*

    @property
    def beacon_config(self) -> BeaconConfig:
        """The beacon networks and relays (the built-in ones unless given at build)."""
        return self._beacon_config

    def use_beacons(self, config: BeaconConfig) -> None:
        """Take `config`'s networks and relays from now on (a test serving its own
        relays; everything else gives them to `Competition.build`)."""
        self._beacon_config = config

    # -- what is known -----------------------------------------------------
    def known(self) -> list[TournamentInfo]:
        """Every live tournament in memory, by id."""
        return [t.info for t in self.tournaments.live()]

    def cached(self, tournament_id: int) -> TournamentInfo | None:
        t = self.tournaments.get(tournament_id)
        return None if t is None else t.info

    def get(self, tournament_id: int) -> TournamentInfo:
        """The tournament in memory; `not_found` otherwise."""
        t = self.tournaments.get(tournament_id)
        if t is None:
            raise _no_tournament(tournament_id)
        return t.info

    async def runtime(self, tournament_id: int) -> Tournament:
        """The tournament's runtime object, read from the store when not in memory."""
        t = self.tournaments.get(tournament_id)
        if t is None:
            info = await self.store.tournament(tournament_id)
            if info is None:
                raise _no_tournament(tournament_id)
            t = self.tournaments.add(info)
        return t

    async def find(self, tournament_id: int) -> TournamentInfo:
        """The tournament, from memory or (created by another process) from the store."""
        return (await self.runtime(tournament_id)).info

    async def reload(self, tournament_id: int) -> TournamentInfo:
        """Read the tournament again from the store (after a change of its status)."""
        info = await self.store.tournament(tournament_id)
        if info is None:
            raise _no_tournament(tournament_id)
        t = self.tournaments.get(tournament_id)
        if t is None:
            return self.tournaments.add(info).info
        return t.learn(info)  # a stale read never reopens a closed tournament

    async def summaries(self) -> list[TournamentInfo]:
        """Every tournament with its entrant count (from the store)."""
        return await self.store.tournaments()

    def check_playable(self, t: Tournament) -> None:
        """`closed` after the close (or while this process closes it), `not_open` before
        the start."""
        info = t.info
        if info.status == CLOSED or t.closing:
            raise CompetitionError(
                "closed",
                f"tournament {info.id} is closed",
                reason="tournament_closed",
                params={"id": info.id},
            )
        if info.status == TournamentStatus.SCHEDULED and (
            self.now() < info.starts_at or info.beacon is not None  # open once R is verified
        ):
            raise CompetitionError(
                "not_open",
                f"tournament {info.id} opens at {timing.iso(info.starts_at)}",
                reason="not_open_yet",
                params={"id": info.id, "at": timing.iso(info.starts_at)},
            )

    # -- seeds ---------------------------------------------------------------
    async def seed(self, tournament_id: int) -> bytes:
        """The seed the deals read: the secret seed, or with a beacon the deal seed of its
        verified round (`not_open` before; so a cached one is never the raw seed of a
        beacon tournament). Never sent anywhere before the close."""
        t = await self.runtime(tournament_id)
        if t.seed is None:  # with a beacon, the deal seed of its verified round
            raw = bytes.fromhex(await self.store.secret_seed(tournament_id))
            t.seed_known(self.beacon_config.dealing_seed(tournament_id, t.info.beacon, raw))
        assert t.seed is not None
        return t.seed

    async def revealed_seed(self, t: TournamentInfo) -> str | None:
        """The seed once the tournament is closed; None before."""
        if t.status != CLOSED:
            return None
        return await self.store.secret_seed(t.id)

    async def revealed(self, t: TournamentInfo) -> str:
        """The seed of a closed tournament; `not_revealed` before the close."""
        if t.status != CLOSED:
            raise CompetitionError(
                "not_revealed",
                f"tournament {t.id} is not closed yet",
                params={"id": t.id},
            )
        return await self.store.secret_seed(t.id)

    # -- creating ------------------------------------------------------------
    async def create_demo_if_empty(self) -> TournamentInfo | None:
        """The demo tournament, on a database without tournaments: once, however many
        nodes start together."""
        async with self.store.exclusively(DEMO_LOCK):
            if await self.store.count_tournaments():
                return None
            return await self.create(default_demo_spec(self.now()))

    async def create(self, spec: TournamentSpec) -> TournamentInfo:
        """Draw the seed, store it, publish its commitment (and prepare a proven deal).
        The operator's verb: it trusts its caller (the protocol's access check,
        net/access.py, the operator's command line, or a schedule's occurrence)."""
        rules, options = _checked(spec)
        now = self.now()
        starts_at = timing.now_ms_precision(spec.starts_at or now)
        ends_at = timing.now_ms_precision(spec.ends_at)
        join_until = timing.now_ms_precision(spec.join_until or ends_at)
        if not tournament_options.ends_in_time(starts_at, ends_at, now):
            raise CompetitionError("bad_request", "ends_at must be after starts_at and now")
        if not tournament_options.join_until_fits(starts_at, join_until, ends_at):
            raise CompetitionError("bad_request", "join_until must lie between start and end")
        if spec.limits:  # before any search: a refusal costs nothing (checked again below)
            await self._within_limits(spec.limits, now)
        seed = rng.new_seed()
        planned = None
        if spec.beacon is not None:  # the deal is prepared once the round is verified
            networks = self.beacon_config.networks
            planned = plan(networks, spec.beacon, now, starts_at, ends_at).as_dict()
            deal = PreparedDeal()
        else:
            deal = await self._prepared(rules, seed, options)
        new = NewTournament(
            name=spec.name,
            game=rules.name,
            options=options.model_dump(),
            commitment=rng.commitment(seed),
            seed_hex=seed.hex(),
            starts_at=starts_at,
            ends_at=ends_at,
            join_until=join_until,
            time_limit_s=spec.time_limit_s,
            status=TournamentStatus.OPEN
            if starts_at <= now and planned is None
            else TournamentStatus.SCHEDULED,
            deal_attempt=deal.deal_attempt,
            guaranteed=deal.guaranteed,
            solution=deal.solution,
            created_at=now,
            beacon=planned,
            **spec.series._asdict(),
            **_event_columns(spec.event),  # club events (v1.4)
        )
        try:
            info = await self.store.create_tournament(new, spec.limits)
        except ClubEventsFull as exc:
            raise full(exc) from None
        self.created(info, seed)
        log.info("tournament %s created (%s), commitment %s", info.id, info.game, info.commitment)
        return info

    async def _within_limits(self, limits: tuple[int, ...], now: datetime) -> None:
        try:
            await stored_clubs.within_limits(self.store, limits, now)
        except ClubEventsFull as exc:
            raise full(exc) from None

    async def _prepared(
        self, rules: GameRules[Any, Any], seed: bytes, options: Any
    ) -> PreparedDeal:
        """The deal: at once for rules that search nothing under these options,
        else in the compute pool (a search would hold the event loop's interpreter)."""
        if not rules.searches(options):
            return rules.prepare_deal(seed, options)
        return await self.compute.run(prepare_deal, rules.name, seed, options.model_dump())

    def created(self, info: TournamentInfo, seed: bytes) -> Tournament:
        """The creation seam: a tournament just stored gets its runtime object, and the
        listeners hear `tournament_changed`."""
        t = self.tournaments.add(info)
        if info.beacon is None:  # a beacon's: once R is verified
            t.seed_known(seed)
        self.tournaments.receive(info.id, Changed(info))
        return t


def _event_columns(event: EventFields) -> dict[str, Any]:
    return {
        "club_id": event.club_id,
        "visibility": event.visibility,
        "entry_code": event.entry_code,
        "created_by": event.created_by,
        "battle": event.battle,
    }


def _checked(spec: TournamentSpec) -> tuple[GameRules[Any, Any], Any]:
    """The game's rules and parsed options; `bad_request` naming what is wrong."""
    if not tournament_options.name_fits(spec.name):
        raise CompetitionError(
            "bad_request", "a tournament name is 1-100 characters", reason="tournament_name"
        )
    rules = rules_of(spec.game)
    if spec.time_limit_s is not None and not tournament_options.time_limit_fits(spec.time_limit_s):
        raise CompetitionError("bad_request", "time_limit_s is 1 second to 7 days")
    try:
        return rules, rules.parse_options(spec.options)
    except ValueError as exc:
        raise CompetitionError("bad_request", str(exc)) from None


def rules_of(game: str) -> GameRules[Any, Any]:
    """The rules of `game`; `bad_request` (`unknown_game`) naming the known ones."""
    rules = RULES.get(game)
    if rules is None:
        raise CompetitionError(
            "bad_request",
            f"unknown game {game!r}; known: {sorted(RULES)}",
            reason="unknown_game",
            params={"game": game[:32]},
        )
    return rules


def _no_tournament(tournament_id: int) -> CompetitionError:
    """`not_found`: no tournament of this id (in memory, or in the store)."""
    return CompetitionError(
        "not_found",
        f"no tournament {tournament_id}",
        reason="no_tournament",
        params={"id": tournament_id},
    )
