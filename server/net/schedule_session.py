"""The schedule messages of protocol v1.3: `schedules` (public), `create_schedule` and
`cancel_schedule` (admin), and the SCHEDULE object they (and GET /schedules.json) carry.

Handlers take the connection's Session (its `competition` and `player`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from server.competition.errors import CompetitionError
from server.competition.service import Competition
from server.domain import conditions, timing
from server.domain.model import PlayerInfo
from server.domain.schedule import NewSchedule, ScheduleInfo, SeriesFields
from server.net import protocol


class _Session(Protocol):
    competition: Competition
    player: PlayerInfo | None


def series_fields(raw_conditions: dict[str, Any] | None, rated: bool) -> SeriesFields:
    """A hand-made tournament's conditions and rated flag; `bad_request` naming a bad
    condition."""
    try:
        return SeriesFields(conditions=conditions.parse(raw_conditions), rated=rated)
    except ValueError as exc:
        raise CompetitionError("bad_request", str(exc)) from None


async def schedule_items(
    competition: Competition, items: list[ScheduleInfo] | None = None
) -> list[dict[str, Any]]:
    """SCHEDULE objects (PROTOCOL v1.3): each with `next`, its next 3 occurrences (a
    SUMMARY for one created, else occurrence, starts_at, ends_at)."""
    schedules = competition.lifecycle.series
    items = await schedules.all() if items is None else items
    upcoming = await schedules.upcoming(items)
    catalogue = competition.catalogue
    out = []
    for s in items:
        nexts: list[dict[str, Any]] = []
        for o, tid in upcoming[s.id]:
            if tid is None:
                nexts.append(
                    {
                        "occurrence": o.k,
                        "name": o.name,
                        "starts_at": timing.iso(o.starts_at),
                        "ends_at": timing.iso(o.ends_at),
                    }
                )
            else:
                t = await catalogue.find(tid)
                nexts.append(protocol.summary(t, await catalogue.revealed_seed(t)))
        out.append({**schedule_json(s), "next": nexts})
    return out


def schedule_json(s: ScheduleInfo) -> dict[str, Any]:
    return {
        "id": s.id,
        "name": s.name,
        "game": s.game,
        "options": s.options,
        "first_starts_at": timing.iso(s.first_starts_at),
        "every_s": s.every_s,
        "duration_s": s.duration_s,
        "time_limit_s": s.time_limit_s,
        "join_for_s": s.join_for_s,
        "conditions": s.conditions,
        "rated": s.rated,
        "beacon": s.beacon,
        "cancelled": s.cancelled,
    }


async def on_schedules(session: _Session, m: protocol.SchedulesRequest) -> dict[str, Any]:
    return {"type": "schedules", "items": await schedule_items(session.competition)}


async def on_create_schedule(session: _Session, m: protocol.CreateSchedule) -> dict[str, Any]:
    new = NewSchedule(
        name=m.name,
        game=m.game,
        options=m.options or {},
        first_starts_at=m.first_starts_at,
        every_s=m.every_s,
        duration_s=m.duration_s,
        time_limit_s=m.time_limit_s,
        join_for_s=m.join_for_s,
        conditions=m.conditions,
        rated=m.rated,
        beacon=m.beacon,
    )
    s = await session.competition.lifecycle.series.create(new, session.player)
    return await _one(session, s)


async def on_cancel_schedule(session: _Session, m: protocol.CancelSchedule) -> dict[str, Any]:
    s = await session.competition.lifecycle.series.cancel(m.schedule, session.player)
    return await _one(session, s)


async def _one(session: _Session, s: ScheduleInfo) -> dict[str, Any]:
    [item] = await schedule_items(session.competition, [s])
    return {"type": "schedule", "schedule": item}


HANDLERS: dict[str, Callable[[Any, Any], Awaitable[dict[str, Any]]]] = {
    "schedules": on_schedules,
    "create_schedule": on_create_schedule,
    "cancel_schedule": on_cancel_schedule,
}
