"""Club events in the database (v1.4, PROTOCOL.md "Club events"): a club's limits, and
the clubs a player belongs to and leads. `within_limits` runs inside the creating
transaction (repository.create_tournament, schedules.create_schedule) with the clubs'
rows locked on PostgreSQL, so two nodes cannot both pass a limit; SQLite's one writer
serialises them anyway."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from server.domain.club_events import MAX_OPEN, MAX_PER_DAY, ClubEventsFull
from server.domain.model import TournamentStatus
from server.store.models import Club, ClubMember, Player, Schedule, TournamentRow


def _of(club_id: int, row_club: int | None, battle: dict[str, Any] | None) -> bool:
    return row_club == club_id or (battle is not None and club_id in battle.get("clubs", ()))


async def within_limits(s: AsyncSession, club_ids: tuple[int, ...], now: datetime) -> None:
    """Nothing when one more event of each club fits (MAX_OPEN open or scheduled, MAX_PER_DAY
    created by non-admins in 24 hours); ClubEventsFull otherwise. The clubs' rows stay
    locked (PostgreSQL) until the caller's commit."""
    if not club_ids:
        return
    locked = select(Club.id).where(Club.id.in_(club_ids)).order_by(Club.id)
    await s.execute(locked.with_for_update())
    since = now - timedelta(hours=24)
    by_hand = (  # tournaments not made by a schedule: their own club, or any battle
        select(
            TournamentRow.club_id,
            TournamentRow.battle,
            TournamentRow.status,
            TournamentRow.created_at,
        )
        .add_columns(Player.admin)
        .outerjoin(Player, Player.id == TournamentRow.created_by)
        .where(
            TournamentRow.schedule_id.is_(None),
            or_(TournamentRow.club_id.in_(club_ids), TournamentRow.battle.is_not(None)),
        )
    )
    events = [
        (club, battle, status != TournamentStatus.CLOSED, at, admin is False)
        for club, battle, status, at, admin in (await s.execute(by_hand)).all()
    ]
    schedules = (
        select(Schedule.club_id, Schedule.cancelled, Schedule.created_at, Player.admin)
        .outerjoin(Player, Player.id == Schedule.created_by)
        .where(Schedule.club_id.in_(club_ids))
    )
    events += [
        (club, None, not cancelled, at, admin is False)
        for club, cancelled, at, admin in (await s.execute(schedules)).all()
    ]
    for club_id in club_ids:
        mine = [e for e in events if _of(club_id, e[0], e[1])]
        if sum(1 for e in mine if e[2]) >= MAX_OPEN:
            raise ClubEventsFull("open", club_id)
        if sum(1 for e in mine if e[4] and e[3] > since) >= MAX_PER_DAY:
            raise ClubEventsFull("day", club_id)


async def roles(s: AsyncSession, player_id: int) -> tuple[frozenset[int], frozenset[int]]:
    """(the clubs the player belongs to, those the player leads: owner or leader)."""
    rows = (
        await s.execute(
            select(ClubMember.club_id, ClubMember.leader, Club.owner_id)
            .join(Club, Club.id == ClubMember.club_id)
            .where(ClubMember.player_id == player_id)
        )
    ).all()
    member = frozenset(r[0] for r in rows)
    leads = frozenset(r[0] for r in rows if r[1] or r[2] == player_id)
    return member, leads


async def missing(s: AsyncSession, club_ids: tuple[int, ...]) -> list[int]:
    """The ids of `club_ids` no club has, in order."""
    found = set(await s.scalars(select(Club.id).where(Club.id.in_(club_ids))))
    return [c for c in club_ids if c not in found]
