"""Schedules in the database (docs/COMPETITION.md "Series"), and the facts entry
conditions read about a player.

Plain async functions over a `Store`, like store/ratings.py. Occurrences are ordinary
tournaments carrying (schedule_id, occurrence); the unique index on that pair (0006)
makes a second creation of one fail with OccurrenceExists (repository.create_tournament).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select, update

from server.domain.schedule import NewSchedule, ScheduleInfo
from server.store import club_events
from server.store.models import Player, Schedule, TournamentRow
from server.store.repository import Store


def _info(row: Schedule) -> ScheduleInfo:
    return ScheduleInfo(
        id=row.id,
        name=row.name,
        game=row.game,
        options=dict(row.options),
        first_starts_at=row.first_starts_at,
        every_s=row.every_s,
        duration_s=row.duration_s,
        time_limit_s=row.time_limit_s,
        join_for_s=row.join_for_s,
        conditions=row.conditions,
        rated=row.rated,
        beacon=row.beacon,
        cancelled=row.cancelled,
        created_at=row.created_at,
        club_id=row.club_id,  # club events (v1.4)
        visibility=row.visibility,
        entry_code=row.entry_code,
        created_by=row.created_by,
    )


async def create_schedule(
    store: Store, new: NewSchedule, now: datetime, limits: tuple[int, ...] = ()
) -> ScheduleInfo:
    """The schedule stored; with `limits`, ClubEventsFull (nothing stored) unless one
    more event of each of these clubs fits (a non-admin's club schedule, v1.4)."""
    async with store._session() as s:
        await club_events.within_limits(s, limits, now)
        row = Schedule(
            name=new.name,
            game=new.game,
            options=new.options,
            first_starts_at=new.first_starts_at,
            every_s=new.every_s,
            duration_s=new.duration_s,
            time_limit_s=new.time_limit_s,
            join_for_s=new.join_for_s,
            conditions=new.conditions,
            rated=new.rated,
            beacon=new.beacon,
            cancelled=False,
            created_at=now,
            club_id=new.club_id,  # club events (v1.4)
            visibility=new.visibility,
            entry_code=new.entry_code,
            created_by=new.created_by,
        )
        s.add(row)
        await s.commit()
        return _info(row)


async def schedules(store: Store, *, active_only: bool = False) -> list[ScheduleInfo]:
    """Every schedule by id (only those not cancelled with `active_only`)."""
    query = select(Schedule).order_by(Schedule.id)
    if active_only:
        query = query.where(Schedule.cancelled.is_(False))
    async with store._session() as s:
        return [_info(r) for r in (await s.scalars(query)).all()]


async def schedule(store: Store, schedule_id: int) -> ScheduleInfo | None:
    async with store._session() as s:
        row = await s.get(Schedule, schedule_id)
        return None if row is None else _info(row)


async def cancel_schedule(store: Store, schedule_id: int) -> bool:
    """Mark it cancelled (its tournaments stay); False when there is no such schedule."""
    async with store._session() as s:
        res = await s.execute(
            update(Schedule).where(Schedule.id == schedule_id).values(cancelled=True)
        )
        await s.commit()
        return bool(res.rowcount)  # type: ignore[attr-defined]


async def occurrences(store: Store, schedule_ids: list[int]) -> dict[tuple[int, int], int]:
    """(schedule, k) -> tournament id, for every created occurrence of these schedules."""
    if not schedule_ids:
        return {}
    async with store._session() as s:
        rows = await s.execute(
            select(TournamentRow.schedule_id, TournamentRow.occurrence, TournamentRow.id).where(
                TournamentRow.schedule_id.in_(schedule_ids)
            )
        )
        return {(sid, k): tid for sid, k, tid in rows.all() if sid is not None and k is not None}


async def account_created_at(store: Store, player_id: int) -> datetime | None:
    async with store._session() as s:
        return await s.scalar(select(Player.created_at).where(Player.id == player_id))
