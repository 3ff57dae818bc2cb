"""The schedule messages: `schedules` (public), `create_schedule` and
`cancel_schedule` (admin); their SCHEDULE objects are built in replies.py.

Handlers take the connection's Session (its `competition` and `player`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from server.competition.errors import CompetitionError
from server.competition.service import Competition
from server.domain import conditions
from server.domain.club_events import Viewer, fields_of
from server.domain.model import PlayerInfo
from server.domain.schedule import NewSchedule, ScheduleInfo, SeriesFields
from server.net import club_events_session, protocol, replies


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


async def on_schedules(session: _Session, m: protocol.SchedulesRequest) -> dict[str, Any]:
    """v1.4: unlisted ones only for their club's members and admins (per viewer)."""
    who = await club_events_session.viewer(session)
    schedules = session.competition.schedules
    mine = [s for s in await schedules.all() if who.lists(fields_of(s))]
    listing = await schedules.listing(mine)
    return {"type": "schedules", "items": [replies.schedule_item(s, who) for s in listing]}


async def on_create_schedule(session: _Session, m: protocol.CreateSchedule) -> dict[str, Any]:
    made = await club_events_session.creation(session, "create_schedule", m)
    event = made.event
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
        rated=made.rated,
        beacon=m.beacon,
        club_id=event.club_id,  # v1.4 club events
        visibility=event.visibility,
        entry_code=event.entry_code,
        created_by=event.created_by,
    )
    s = await session.competition.schedules.create(new, made.limits)
    return await _one(session, s, made.viewer)


async def on_cancel_schedule(session: _Session, m: protocol.CancelSchedule) -> dict[str, Any]:
    found = await session.competition.schedules.get(m.schedule)
    who = await club_events_session.manage(session, "cancel_schedule", found)
    s = await session.competition.schedules.cancel(m.schedule)
    return await _one(session, s, who)


async def _one(session: _Session, s: ScheduleInfo, who: Viewer) -> dict[str, Any]:
    [listing] = await session.competition.schedules.listing([s])
    return {"type": "schedule", "schedule": replies.schedule_item(listing, who)}


HANDLERS: dict[str, Callable[[Any, Any], Awaitable[dict[str, Any]]]] = {
    "schedules": on_schedules,
    "create_schedule": on_create_schedule,
    "cancel_schedule": on_cancel_schedule,
}
