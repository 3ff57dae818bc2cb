"""The club side of the operator's messages (v1.4, PROTOCOL.md "Club events"): who asks
(their clubs), a creation's club fields checked and judged, and the judgement of closing,
cancelling or disqualifying in an event; access.py decides, from the facts read here."""

from __future__ import annotations

from typing import Any, NamedTuple, Protocol

from server.competition.service import Competition
from server.domain.club_events import OPERATOR, EventFields, Viewer, fields_of
from server.domain.model import PlayerInfo
from server.net import access


class _Session(Protocol):
    competition: Competition
    player: PlayerInfo | None


class Creation(NamedTuple):
    """A creation's club facts: its fields, its `rated`, the clubs whose limits it must
    fit (none for an admin's) and who creates it."""

    event: EventFields
    rated: bool
    limits: tuple[int, ...]
    viewer: Viewer


async def viewer(session: _Session) -> Viewer:
    """Who sends: an admin, or a player with their clubs (nobody signed in: nobody's)."""
    operator = access.operator_viewer(session.player)
    if operator is not None:
        return operator
    return await session.competition.club_events.viewer(session.player)


async def creation(
    session: _Session,
    kind: str,
    m: Any,  # CreateTournament or CreateSchedule (a schedule has no battle)
) -> Creation:
    """The message's club facts, judged (access.creation); nothing is changed."""
    who = await viewer(session)
    event = await session.competition.club_events.fields(
        who.player_id, m.club, getattr(m, "battle", None), m.visibility, m.entry_code
    )
    rated = access.creation(kind, who, event, m.rated)
    return Creation(event, rated, access.limited_clubs(who, event), who)


async def manage(session: _Session, kind: str, event: Any) -> Viewer:
    """Who sends, once access.manage let them act on `event` (a tournament or a
    schedule); `forbidden` otherwise."""
    who = await viewer(session)
    access.manage(kind, who, fields_of(event), bool(event.rated))
    return who


__all__ = ["OPERATOR", "Creation", "creation", "manage", "viewer"]
