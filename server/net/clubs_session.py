"""The club messages of protocol v1.4 (PROTOCOL.md "Clubs"). Handlers take the
connection's Session (its `competition` and `player`), like accounts_session.py; each
answers `{"type": "club", "club": CLUB}` but `clubs`, which lists."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from server.competition.service import Competition
from server.domain.clubs import ClubInfo
from server.domain.model import PlayerInfo
from server.net.clubs_protocol import (
    ClubRequest,
    ClubsRequest,
    CreateClub,
    JoinClub,
    KickMember,
    LeaveClub,
    NewInvite,
    SetLeader,
    SetOwner,
    club_object,
)


class _Session(Protocol):
    competition: Competition
    player: PlayerInfo | None


def _club(c: ClubInfo) -> dict[str, Any]:
    return {"type": "club", "club": club_object(c)}


def _me(session: _Session) -> PlayerInfo:
    assert session.player is not None  # access.check: not a public type
    return session.player


async def _create_club(session: _Session, m: CreateClub) -> dict[str, Any]:
    return _club(await session.competition.clubs.create(_me(session), m.name, m.description))


async def _clubs(session: _Session, m: ClubsRequest) -> dict[str, Any]:
    """Public; `mine: true` needs a player."""
    total, items = await session.competition.clubs.listed(session.player, m.offset, m.limit, m.mine)
    return {"type": "clubs", "total": total, "items": [club_object(c) for c in items]}


async def _show_club(session: _Session, m: ClubRequest) -> dict[str, Any]:
    """Public."""
    return _club(await session.competition.clubs.show(m.club, session.player, m.offset, m.limit))


async def _join_club(session: _Session, m: JoinClub) -> dict[str, Any]:
    return _club(await session.competition.clubs.join(_me(session), m.code))


async def _leave_club(session: _Session, m: LeaveClub) -> dict[str, Any]:
    return _club(await session.competition.clubs.leave(_me(session), m.club))


async def _set_owner(session: _Session, m: SetOwner) -> dict[str, Any]:
    return _club(await session.competition.clubs.set_owner(_me(session), m.club, m.player))


async def _kick_member(session: _Session, m: KickMember) -> dict[str, Any]:
    return _club(await session.competition.clubs.kick(_me(session), m.club, m.player))


async def _new_invite(session: _Session, m: NewInvite) -> dict[str, Any]:
    return _club(await session.competition.clubs.new_invite(_me(session), m.club))


async def _set_leader(session: _Session, m: SetLeader) -> dict[str, Any]:
    clubs = session.competition.clubs
    return _club(await clubs.set_leader(_me(session), m.club, m.player, m.leader))


HANDLERS: dict[str, Callable[[Any, Any], Awaitable[dict[str, Any]]]] = {
    "create_club": _create_club,
    "clubs": _clubs,
    "club": _show_club,
    "join_club": _join_club,
    "leave_club": _leave_club,
    "set_owner": _set_owner,
    "kick_member": _kick_member,
    "new_invite": _new_invite,
    "set_leader": _set_leader,
}
