"""Club events, visibility and entry codes (v1.4, PROTOCOL.md "Clubs (v1.4)"), pure.

An event (a tournament or a schedule) may belong to a club (`club`) or, a tournament
only, be a battle of 2..10 clubs (`battle`); it is `public` or `unlisted`, and may need
an entry code. `EventFields` is what a creation carries of all that; `Viewer` is who
asks, and decides what a list shows them and whether they are shown the entry code.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, NamedTuple

PUBLIC, UNLISTED = "public", "unlisted"
VISIBILITIES = (PUBLIC, UNLISTED)
CODE_RULE = re.compile(r"[A-Za-z0-9_-]{4,32}")
MAX_OPEN = 5  # a club's events open or scheduled (non-admins' creations beyond: refused)
MAX_PER_DAY = 20  # events a club's non-admins create within 24 hours
BATTLE_CLUBS = (2, 10)
BATTLE_COUNTED = (1, 20)


class EventFields(NamedTuple):
    """A tournament's or schedule's club facts as stored (a schedule has no battle)."""

    club_id: int | None = None
    visibility: str = PUBLIC
    entry_code: str | None = None
    created_by: int | None = None  # the creating player; None: the operator's command line
    battle: dict[str, Any] | None = None  # {"clubs": [ID...], "counted": N}

    def clubs(self) -> tuple[int, ...]:
        """The clubs it is an event of: its club, or a battle's clubs, or none."""
        if self.battle is not None:
            return tuple(self.battle["clubs"])
        return () if self.club_id is None else (self.club_id,)


def fields_of(event: Any) -> EventFields:
    """The club facts of a TournamentInfo or ScheduleInfo."""
    return EventFields(
        event.club_id,
        event.visibility,
        event.entry_code,
        event.created_by,
        getattr(event, "battle", None),
    )


class ClubEventsFull(Exception):
    """A non-admin's creation past a club's limits; `limit` is always `club_events`,
    `which` says which of the two (`open` or `day`) and `club` which club."""

    def __init__(self, which: str, club_id: int) -> None:
        super().__init__(f"club {club_id}: {which}")
        self.which, self.club_id = which, club_id


def checked(
    club: int | None,
    battle: dict[str, Any] | None,
    visibility: str,
    entry_code: str | None,
) -> str | None:
    """What is wrong with a creation's club fields, in one line (a reason key of the
    catalogues, below); None when nothing is. `battle` as sent: {"clubs", "counted"}."""
    if visibility not in VISIBILITIES:
        return "bad_visibility"
    if entry_code is not None and CODE_RULE.fullmatch(entry_code) is None:
        return "bad_entry_code"
    if battle is None:
        return None
    if club is not None:
        return "battle_with_club"
    clubs, counted = battle.get("clubs"), battle.get("counted")
    if set(battle) != {"clubs", "counted"} or not isinstance(clubs, list):
        return "bad_battle"
    if not all(isinstance(c, int) and not isinstance(c, bool) and c >= 1 for c in clubs):
        return "bad_battle"
    if not BATTLE_CLUBS[0] <= len(clubs) <= BATTLE_CLUBS[1] or len(set(clubs)) != len(clubs):
        return "bad_battle"
    if isinstance(counted, bool) or not isinstance(counted, int):
        return "bad_battle"
    if not BATTLE_COUNTED[0] <= counted <= BATTLE_COUNTED[1]:
        return "bad_battle"
    return None


@dataclass(frozen=True, slots=True)
class Viewer:
    """Who asks: an admin, or a player with the clubs they belong to and lead (the
    operator's command line is an admin; nobody signed in is ANONYMOUS)."""

    player_id: int | None = None
    admin: bool = False
    member_of: frozenset[int] = field(default_factory=frozenset)
    leads: frozenset[int] = field(default_factory=frozenset)

    def lists(self, event: EventFields) -> bool:
        """Whether a list (`tournaments`, `schedules`) shows it to this viewer: a public
        event to all; an unlisted one to admins and the members of its club(s)."""
        if event.visibility != UNLISTED or self.admin:
            return True
        return any(c in self.member_of for c in event.clubs())

    def sees_code(self, event: EventFields) -> bool:
        """Whether what is sent to this viewer carries the entry code: its creator, its
        club's leaders (a battle: of any named club) and admins."""
        if self.admin:
            return True
        if self.player_id is not None and event.created_by == self.player_id:
            return True
        return any(c in self.leads for c in event.clubs())

    def manages(self, event: EventFields) -> bool:
        """Whether this viewer leads the event as a club (a battle: every named club)."""
        clubs = event.clubs()
        return bool(clubs) and all(c in self.leads for c in clubs)


ANONYMOUS = Viewer()
OPERATOR = Viewer(admin=True)
