"""Club events (v1.4, PROTOCOL.md "Club events", "Visibility and entry codes", "Team
battles"): who asks (their clubs, domain/club_events.Viewer), a creation's club fields
checked, a club's limits as a protocol refusal, and a join's club conditions (membership,
entry code, a battle's club). Who may create or manage an event is decided in one place,
net/access.py, from the facts read here."""

from __future__ import annotations

from typing import Any

from server.competition.clubs import Clubs
from server.competition.errors import CompetitionError
from server.domain.club_events import (
    MAX_OPEN,
    MAX_PER_DAY,
    ClubEventsFull,
    EventFields,
    Viewer,
    checked,
)
from server.domain.model import PlayerInfo, TournamentInfo
from server.store import clubs as stored
from server.store.repository import Store

TEXTS = {
    "bad_visibility": "visibility is public or unlisted",
    "bad_entry_code": "an entry code is 4-32 letters, digits, _ or -",
    "battle_with_club": "a battle names its clubs in battle, never with club",
    "bad_battle": "battle is {clubs: 2-10 distinct club ids, counted: 1-20}",
    "no_club": "no such club",
    "club_events_open": f"a club has at most {MAX_OPEN} events open or scheduled",
    "club_events_day": f"a club's members create at most {MAX_PER_DAY} events a day",
    "condition_club": "only members of the event's club may join",
    "battle_club_needed": "you belong to several clubs of this battle: say which (club)",
    "battle_club_not_yours": "join under one of your clubs named in the battle",
    "entry_code_needed": "this tournament needs its entry code (code)",
    "entry_code_wrong": "wrong entry code",
}


def _refuse(code: str, reason: str, **params: Any) -> CompetitionError:
    return CompetitionError(code, TEXTS[reason], reason=reason, params=params)


def full(exc: ClubEventsFull) -> CompetitionError:
    """A club's limit as the protocol says it: `rate_limited`, `limit: club_events`."""
    reason = f"club_events_{exc.which}"
    params = {"id": exc.club_id, "max": MAX_OPEN if exc.which == "open" else MAX_PER_DAY}
    return CompetitionError(
        "rate_limited", TEXTS[reason], reason=reason, params=params, limit="club_events"
    )


class ClubEvents:
    """The club facts of events and of the players who create, list and join them."""

    def __init__(self, store: Store, clubs: Clubs) -> None:
        self.store = store
        self.clubs = clubs

    async def viewer(self, player: PlayerInfo | None) -> Viewer:
        """Who asks, with the clubs they belong to and lead (none signed in: nobody's)."""
        if player is None:
            return Viewer()
        member, leads = await stored.roles(self.store, player.id)
        return Viewer(player.id, player.admin, member, leads)

    async def fields(
        self,
        creator: int | None,
        club: int | None,
        battle: dict[str, Any] | None,
        visibility: str,
        entry_code: str | None,
    ) -> EventFields:
        """A creation's club fields: `bad_request` naming what is wrong, `not_found` for
        an unknown club (the first, in order)."""
        problem = checked(club, battle, visibility, entry_code)
        if problem is not None:
            raise _refuse("bad_request", problem)
        made = EventFields(club, visibility, entry_code, creator, battle)
        lost = await stored.missing(self.store, made.clubs())
        if lost:
            raise _refuse("not_found", "no_club", id=lost[0])
        if battle is not None:
            stored_battle = {"clubs": list(battle["clubs"]), "counted": battle["counted"]}
            made = made._replace(battle=stored_battle)
        return made

    async def entry_club(
        self, player: PlayerInfo, t: TournamentInfo, code: str | None, club: int | None
    ) -> int | None:
        """Nothing (a battle: the club the entry plays for) when the player may enter `t`
        as its club and code go; `forbidden` naming `club`, or the code's refusal (a wrong
        code counted, `rate_limited` with `limit: codes` after too many)."""
        event = EventFields(t.club_id, t.visibility, t.entry_code, t.created_by, t.battle)
        playing_for = None
        if event.clubs():
            member, _ = await stored.roles(self.store, player.id)
            mine = [c for c in event.clubs() if c in member]
            if not mine:
                raise _refuse("forbidden", "condition_club", condition="club")
            if t.battle is not None:
                if club is None and len(mine) > 1:
                    raise _refuse("bad_request", "battle_club_needed")
                if club is not None and club not in mine:
                    raise _refuse("forbidden", "battle_club_not_yours", id=club)
                playing_for = mine[0] if club is None else club
        if t.entry_code is not None:
            if code is None:
                raise _refuse("forbidden", "entry_code_needed")
            await self.clubs.check_guesses(player)
            if code != t.entry_code:
                await self.clubs.count_guess(player)
                raise _refuse("forbidden", "entry_code_wrong")
        return playing_for
