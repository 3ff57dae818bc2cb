"""The tournament catalogue: creating tournaments (seed, commitment, prepared deal), the
tournaments this process knows, their secret seeds, and revealing them after the close.

The seed is drawn here and leaves this module only to deal (in memory) or once the
tournament is closed (`revealed_seed`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from server import rng
from server.competition.errors import CompetitionError
from server.domain import timing
from server.domain.model import NewTournament, PlayerInfo, TournamentInfo, TournamentStatus
from server.domain.schedule import SeriesFields
from server.games import RULES, GameRules
from server.store.repository import Store

log = logging.getLogger("samedeal.catalogue")
CLOSED = TournamentStatus.CLOSED
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
    series: SeriesFields = field(default_factory=SeriesFields)  # series (v1.3) hook


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
    """Tournaments by id, kept in memory and refreshed from the store."""

    def __init__(self, store: Store, now: Callable[[], datetime]) -> None:
        self.store = store
        self.now = now
        self._tournaments: dict[int, TournamentInfo] = {}
        self._seeds: dict[int, bytes] = {}
        self.closing: set[int] = set()  # closes in progress in this process

    # -- what is known -----------------------------------------------------
    def known(self) -> list[TournamentInfo]:
        """Every tournament in memory, by id."""
        return sorted(self._tournaments.values(), key=lambda t: t.id)

    def cached(self, tournament_id: int) -> TournamentInfo | None:
        return self._tournaments.get(tournament_id)

    def get(self, tournament_id: int) -> TournamentInfo:
        """The tournament in memory; `not_found` otherwise."""
        t = self._tournaments.get(tournament_id)
        if t is None:
            raise CompetitionError("not_found", f"no tournament {tournament_id}")
        return t

    async def find(self, tournament_id: int) -> TournamentInfo:
        """The tournament, from memory or (created by another process) from the store."""
        t = self._tournaments.get(tournament_id)
        if t is None:
            t = await self.store.tournament(tournament_id)
            if t is None:
                raise CompetitionError("not_found", f"no tournament {tournament_id}")
            self._tournaments[t.id] = t
        return t

    def remember(self, t: TournamentInfo) -> TournamentInfo | None:
        """Keep `t` as the latest facts; returns what was known before."""
        old = self._tournaments.get(t.id)
        if old is not None and old.status == CLOSED and t.status != CLOSED:
            return old  # read before a close this process already knows: keep the close
        self._tournaments[t.id] = t
        return old

    async def reload(self, tournament_id: int) -> TournamentInfo:
        """Read the tournament again from the store (after a change of its status)."""
        t = await self.store.tournament(tournament_id)
        if t is None:
            raise CompetitionError("not_found", f"no tournament {tournament_id}")
        self._tournaments[t.id] = t
        return t

    async def summaries(self) -> list[TournamentInfo]:
        """Every tournament with its entrant count (from the store)."""
        return await self.store.tournaments()

    def check_playable(self, t: TournamentInfo) -> None:
        """`closed` after the close, `not_open` before the start."""
        if t.status == CLOSED or t.id in self.closing:
            raise CompetitionError("closed", f"tournament {t.id} is closed")
        if t.status == TournamentStatus.SCHEDULED and self.now() < t.starts_at:
            raise CompetitionError(
                "not_open", f"tournament {t.id} opens at {timing.iso(t.starts_at)}"
            )

    # -- seeds ---------------------------------------------------------------
    async def seed(self, tournament_id: int) -> bytes:
        """The secret seed, to deal with. Never sent anywhere before the close."""
        seed = self._seeds.get(tournament_id)
        if seed is None:
            seed = bytes.fromhex(await self.store.secret_seed(tournament_id))
            self._seeds[tournament_id] = seed
        return seed

    async def revealed_seed(self, t: TournamentInfo) -> str | None:
        """The seed once the tournament is closed; None before."""
        if t.status != CLOSED:
            return None
        return await self.store.secret_seed(t.id)

    async def revealed(self, t: TournamentInfo) -> str:
        """The seed of a closed tournament; `not_revealed` before the close."""
        if t.status != CLOSED:
            raise CompetitionError("not_revealed", f"tournament {t.id} is not closed yet")
        return await self.store.secret_seed(t.id)

    # -- creating ------------------------------------------------------------
    async def create_demo_if_empty(self) -> TournamentInfo | None:
        """The demo tournament, on a database without tournaments: once, however many
        nodes start together."""
        async with self.store.exclusively(DEMO_LOCK):
            if await self.store.count_tournaments():
                return None
            return await self.create(default_demo_spec(self.now()))

    async def create(self, spec: TournamentSpec, by: PlayerInfo | None = None) -> TournamentInfo:
        """Draw the seed, store it, publish its commitment (and prepare a proven deal).
        `by` is the player asking over the protocol (None: the operator's command line)."""
        if by is not None and not by.admin:
            raise CompetitionError("forbidden", "only an operator creates tournaments")
        rules, options = _checked(spec)
        now = self.now()
        starts_at = timing.now_ms_precision(spec.starts_at or now)
        ends_at = timing.now_ms_precision(spec.ends_at)
        join_until = timing.now_ms_precision(spec.join_until or ends_at)
        if ends_at <= starts_at or ends_at <= now:
            raise CompetitionError("bad_request", "ends_at must be after starts_at and now")
        if not starts_at <= join_until <= ends_at:
            raise CompetitionError("bad_request", "join_until must lie between start and end")
        seed = rng.new_seed()
        deal = await asyncio.to_thread(rules.prepare_deal, seed, options)  # may search
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
            status=TournamentStatus.OPEN if starts_at <= now else TournamentStatus.SCHEDULED,
            deal_attempt=deal.deal_attempt,
            guaranteed=deal.guaranteed,
            solution=deal.solution,
            created_at=now,
            **spec.series._asdict(),  # series (v1.3) hook
        )
        t = await self.store.create_tournament(new)
        self._tournaments[t.id] = t
        self._seeds[t.id] = seed
        log.info("tournament %s created (%s), commitment %s", t.id, t.game, t.commitment)
        return t


def _checked(spec: TournamentSpec) -> tuple[GameRules[Any, Any], Any]:
    """The game's rules and parsed options; `bad_request` naming what is wrong."""
    if not 1 <= len(spec.name) <= 100:
        raise CompetitionError("bad_request", "a tournament name is 1-100 characters")
    rules = RULES.get(spec.game)
    if rules is None:
        raise CompetitionError("bad_request", f"unknown game {spec.game!r}; known: {sorted(RULES)}")
    if spec.time_limit_s is not None and not 1 <= spec.time_limit_s <= 7 * 86400:
        raise CompetitionError("bad_request", "time_limit_s is 1 second to 7 days")
    try:
        return rules, rules.parse_options(spec.options)
    except ValueError as exc:
        raise CompetitionError("bad_request", str(exc)) from None
