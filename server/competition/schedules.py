"""Schedules (COMPETITION.md "Series"): recurring tournaments and their occurrences.

A schedule is stored once; its occurrences are ordinary tournaments created through the
catalogue (seed, commitment, prepared deal) with their (schedule, k). `ensure` creates
every occurrence that must exist now (domain/schedule.due) and is called from the
lifecycle tick of the leader; it is safe on any node and at any moment: the unique
(schedule_id, occurrence) of the store is the fence, so a node that loses the race gets
OccurrenceExists and learns of the winner's tournament as of any other creation.

A schedule with a `beacon` gives each occurrence that option: the catalogue publishes,
at the occurrence's creation, the round the rule names for it (competition/beacon_policy.plan),
and the lifecycle's `Beacons` opens it once that round is verified, or voids it, as any
beacon tournament (competition/beacons.py).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any, NamedTuple

from server.audit.drand import Network
from server.competition import beacon_policy
from server.competition.catalogue import Catalogue, TournamentSpec, rules_of
from server.competition.club_events import full
from server.competition.errors import CompetitionError
from server.domain import conditions as entry_conditions
from server.domain import schedule
from server.domain.club_events import ClubEventsFull, EventFields
from server.domain.model import TournamentInfo
from server.domain.schedule import NewSchedule, Occurrence, ScheduleInfo, SeriesFields
from server.store import schedules as stored
from server.store.repository import Store

log = logging.getLogger("samedeal.schedules")
POLL_S = 2.0  # how often the tick reads the schedules again


class Upcoming(NamedTuple):
    """One of a schedule's next occurrences: its tournament (with its seed once revealed)
    once created, else None."""

    occurrence: Occurrence
    tournament: TournamentInfo | None = None
    seed: str | None = None


class Listing(NamedTuple):
    """A schedule with its next occurrences not yet ended."""

    schedule: ScheduleInfo
    next: list[Upcoming]


class Schedules:
    """Creating, cancelling and listing schedules; creating their occurrences. The
    operator's verbs (`create`, `cancel`) trust their caller: the protocol's access
    check (net/access.py) or the operator's command line."""

    def __init__(self, store: Store, catalogue: Catalogue, now: Callable[[], datetime]) -> None:
        self.store = store
        self.catalogue = catalogue
        self.now = now
        self._next_poll: datetime | None = None

    async def create(self, new: NewSchedule, limits: tuple[int, ...] = ()) -> ScheduleInfo:
        """Store a schedule (`bad_request` naming what is wrong) and create at once the
        occurrences due now, so their commitments are public from the start. `limits`:
        the clubs whose limits it must fit (a non-admin's club schedule, v1.4)."""
        networks = self.catalogue.beacon_config.networks
        try:
            s = await stored.create_schedule(self.store, checked(new, networks), self.now(), limits)
        except ClubEventsFull as exc:
            raise full(exc) from None
        log.info("schedule %s created: %s every %s s", s.id, s.name, s.every_s)
        await self.ensure_schedule(s, self.now())
        return s

    async def cancel(self, schedule_id: int) -> ScheduleInfo:
        """No new occurrences; those created stay."""
        if not await stored.cancel_schedule(self.store, schedule_id):
            raise CompetitionError(
                "not_found",
                f"no schedule {schedule_id}",
                reason="no_schedule",
                params={"id": schedule_id},
            )
        s = await self.get(schedule_id)
        log.info("schedule %s cancelled", s.id)
        return s

    async def get(self, schedule_id: int) -> ScheduleInfo:
        s = await stored.schedule(self.store, schedule_id)
        if s is None:
            raise CompetitionError(
                "not_found",
                f"no schedule {schedule_id}",
                reason="no_schedule",
                params={"id": schedule_id},
            )
        return s

    async def all(self) -> list[ScheduleInfo]:
        return await stored.schedules(self.store)

    async def listing(self, items: list[ScheduleInfo] | None = None) -> list[Listing]:
        """`items` (every schedule when None), each with its next 3 occurrences not yet
        ended (`upcoming`), a created one with its tournament as the catalogue has it."""
        items = await self.all() if items is None else items
        upcoming = await self.upcoming(items)
        out = []
        for s in items:
            nexts = []
            for o, tid in upcoming[s.id]:
                if tid is None:
                    nexts.append(Upcoming(o))
                else:
                    t = await self.catalogue.find(tid)
                    nexts.append(Upcoming(o, t, await self.catalogue.revealed_seed(t)))
            out.append(Listing(s, nexts))
        return out

    async def upcoming(
        self, items: list[ScheduleInfo], n: int = 3
    ) -> dict[int, list[tuple[Occurrence, int | None]]]:
        """Per schedule its next `n` occurrences not yet ended, each with its tournament's
        id once created (a cancelled schedule: only those created)."""
        now = self.now()
        made = await stored.occurrences(self.store, [s.id for s in items])
        out: dict[int, list[tuple[Occurrence, int | None]]] = {}
        for s in items:
            nexts = [(o, made.get((s.id, o.k))) for o in schedule.upcoming(s, now, n)]
            out[s.id] = [(o, tid) for o, tid in nexts if tid is not None or not s.cancelled]
        return out

    async def ensure(self, now: datetime) -> list[TournamentInfo]:
        """Create the occurrences due at `now` of every active schedule (read again at
        most every POLL_S); returns those this call created."""
        if self._next_poll is not None and now < self._next_poll:
            return []
        self._next_poll = now + timedelta(seconds=POLL_S)
        created: list[TournamentInfo] = []
        for s in await stored.schedules(self.store, active_only=True):
            created += await self.ensure_schedule(s, now)
        return created

    async def ensure_schedule(self, s: ScheduleInfo, now: datetime) -> list[TournamentInfo]:
        """Create the occurrences of `s` due at `now` that do not exist yet."""
        due = schedule.due(s, now)
        if not due or s.cancelled:
            return []
        made = await stored.occurrences(self.store, [s.id])
        created = []
        for k in due:
            if (s.id, k) in made:
                continue
            t = await self._create(s, schedule.occurrence(s, k))
            if t is not None:
                created.append(t)
        return created

    async def _create(self, s: ScheduleInfo, o: Occurrence) -> TournamentInfo | None:
        spec = TournamentSpec(
            name=o.name,
            game=s.game,
            options=s.options,
            starts_at=o.starts_at,
            ends_at=o.ends_at,
            join_until=o.join_until,
            time_limit_s=s.time_limit_s,
            beacon=s.beacon,  # its round: the rule's for this occurrence (beacon_policy.plan)
            series=SeriesFields(s.id, o.k, s.conditions, s.rated),
            event=EventFields(s.club_id, s.visibility, s.entry_code, s.created_by),  # v1.4
        )
        try:
            t = await self.catalogue.create(spec)
        except schedule.OccurrenceExists:
            return None  # another node created it first: its notice tells this one
        except CompetitionError as exc:  # it ended meanwhile: skipped, never in the past
            log.warning("occurrence %s of schedule %s not created: %s", o.k, s.id, exc.message)
            return None
        log.info("schedule %s: occurrence %s is tournament %s", s.id, o.k, t.id)
        return t


def checked(new: NewSchedule, networks: Mapping[str, Network]) -> NewSchedule:
    """The schedule with its game options, conditions and beacon in their stored form;
    `bad_request` naming what is wrong (a beacon: a network of `networks`, and each
    occurrence longer than its period, so its round comes before its end)."""
    problem = schedule.check(new)
    if problem is not None:
        raise CompetitionError("bad_request", problem)
    rules = rules_of(new.game)
    spec = new.beacon
    if spec is not None:
        net = beacon_policy.network_of(networks, spec)
        if new.duration_s <= net.period:
            raise CompetitionError(
                "bad_request",
                f"duration_s must be longer than the {net.name} beacon's period ({net.period} s)",
            )
        spec = {"network": net.name}
    try:
        options: dict[str, Any] = rules.parse_options(new.options).model_dump()
        conditions = entry_conditions.parse(new.conditions)
    except ValueError as exc:
        raise CompetitionError("bad_request", str(exc).splitlines()[0]) from None
    return replace(new, options=options, conditions=conditions, beacon=spec)
