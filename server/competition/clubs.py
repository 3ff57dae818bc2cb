"""Clubs (v1.4, PROTOCOL.md "Clubs"): create, list and show, join by code, leave, hand
over, name leaders, kick, new code. The rules of names, descriptions and codes are pure
(server/domain/clubs.py, names.py); the store decides each change in one transaction
(server/store/clubs.py). A club's current code is stored as such (an invitation its
leaders hand out, not a credential: docs/COMPETITION.md "Clubs (v1.4)", docs/DECISIONS.md)
and shown to its owner and leaders in every CLUB they receive. Wrong codes are counted per
player across nodes: after GUESSES_PER_MINUTE in a minute, `rate_limited` with
`limit: "codes"`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import datetime, timedelta

from server.competition.errors import CompetitionError
from server.domain import names
from server.domain.clubs import (
    GUESSES_PER_MINUTE,
    MAX_OWNED,
    PAGE_MAX,
    BadDescription,
    ClubInfo,
    checked_description,
    new_code,
)
from server.domain.model import PlayerInfo
from server.store import clubs as stored
from server.store.clubs import ClubRefusal, NewClub
from server.store.repository import Store

TEXTS = {
    "no_club": "no such club",
    "no_player": "no such player",
    "name_taken": "a club of that name exists",
    "clubs_owned": f"a player owns at most {MAX_OWNED} clubs",
    "club_role": "your role in this club does not allow that",
    "not_club_member": "that player is not a member of this club",
    "owner_stays": "the owner hands the club over (set_owner) before leaving",
    "kick_self": "nobody kicks oneself: leave the club instead",
    "owner_no_leader": "the owner is never one of the club's leaders",
    "no_club_code": "no club has this code",
    "code_guesses": "too many wrong codes: wait a minute",
    "page": f"offset is 0 or more and limit 1..{PAGE_MAX}",
    "mine": "authenticate first to list your clubs",
}
_CODES = {  # the protocol error of each refusal
    ClubRefusal.NO_CLUB: "not_found",
    ClubRefusal.NO_PLAYER: "not_found",
    ClubRefusal.NAME_TAKEN: "name_taken",
    ClubRefusal.OWNED: "rate_limited",
    ClubRefusal.ROLE: "forbidden",
    ClubRefusal.NOT_MEMBER: "forbidden",
    ClubRefusal.OWNER_STAYS: "forbidden",
    ClubRefusal.KICK_SELF: "forbidden",
    ClubRefusal.OWNER_NO_LEADER: "forbidden",
}


def _refused(refusal: ClubRefusal, club_id: int | None = None, name: str | None = None) -> None:
    code = _CODES[refusal]
    params: dict[str, object] = {}
    extra: dict[str, object] = {}
    if refusal is ClubRefusal.NO_CLUB:
        params = {"id": club_id}
    elif refusal in (ClubRefusal.NO_PLAYER, ClubRefusal.NOT_MEMBER, ClubRefusal.NAME_TAKEN):
        params = {"name": (name or "")[:32]}
    elif refusal is ClubRefusal.OWNED:
        params = {"max": MAX_OWNED}
        extra = {"limit": "clubs_owned"}
    raise CompetitionError(code, TEXTS[refusal.value], reason=refusal.value, params=params, **extra)


def _name(name: str) -> str:
    try:
        return names.normalise(name)
    except names.BadName as e:
        raise CompetitionError("bad_request", str(e), reason="bad_name", params=e.params) from None


def _page(offset: int, limit: int) -> None:
    if offset < 0 or not 1 <= limit <= PAGE_MAX:
        raise CompetitionError("bad_request", TEXTS["page"], reason="bad_page")


class Clubs:
    """Clubs and their members; every verb answers the club as its sender sees it."""

    def __init__(self, store: Store, now: Callable[[], datetime]) -> None:
        self.store = store
        self.now = now

    async def create(self, player: PlayerInfo, name: str, description: str | None) -> ClubInfo:
        name = _name(name)
        try:
            text = checked_description(description)
        except BadDescription as e:
            raise CompetitionError("bad_request", str(e), reason="bad_description") from None
        code = new_code()
        new = NewClub(name, names.name_key(name), text, code, self.now())
        made = await stored.create(self.store, player.id, new)
        if isinstance(made, ClubRefusal):
            _refused(made, name=name)
        assert isinstance(made, int)
        return await self._shown(made, player)

    async def show(
        self, club_id: int, asker: PlayerInfo | None, offset: int = 0, limit: int = PAGE_MAX
    ) -> ClubInfo:
        """The club with `member_names` offset+1..offset+limit."""
        _page(offset, limit)
        club = await self._shown(club_id, asker)
        members = await stored.member_names(self.store, club_id, offset, limit)
        return _with(club, member_names=members)

    async def listed(
        self, asker: PlayerInfo | None, offset: int, limit: int, mine: bool
    ) -> tuple[int, list[ClubInfo]]:
        _page(offset, limit)
        if mine and asker is None:
            raise CompetitionError("unauthorized", TEXTS["mine"], reason="sign_in_first")
        return await stored.listed(
            self.store, offset, limit, None if asker is None else asker.id, mine
        )

    async def join(self, player: PlayerInfo, code: str) -> ClubInfo:
        """The club whose current code is `code` (compared exactly), the player a member;
        a wrong code is counted, and `codes` holds after too many in a minute."""
        now = self.now()
        await self.check_guesses(player)
        club_id = await stored.join(self.store, code, player.id, now)
        if club_id is None:
            await stored.count_guess(self.store, player.id, now)
            raise CompetitionError("not_found", TEXTS["no_club_code"], reason="no_club_code")
        return await self._shown(club_id, player)

    async def check_guesses(self, player: PlayerInfo) -> None:
        """`rate_limited` (limit `codes`) when the player gave too many wrong codes in
        the last minute (join_club here; a tournament's entry code counts too)."""
        since = self.now() - timedelta(minutes=1)
        if await stored.guesses(self.store, player.id, since) >= GUESSES_PER_MINUTE:
            raise CompetitionError(
                "rate_limited", TEXTS["code_guesses"], reason="code_guesses", limit="codes"
            )

    async def count_guess(self, player: PlayerInfo) -> None:
        """A wrong code the player gave (a tournament's entry code: club_events.py)."""
        await stored.count_guess(self.store, player.id, self.now())

    async def leave(self, player: PlayerInfo, club_id: int) -> ClubInfo:
        _check(await stored.leave(self.store, club_id, player.id), club_id)
        return await self._shown(club_id, player)

    async def kick(self, player: PlayerInfo, club_id: int, name: str) -> ClubInfo:
        refusal = await stored.kick(self.store, club_id, player.id, names.name_key(name))
        _check(refusal, club_id, name)
        return await self._shown(club_id, player)

    async def set_owner(self, player: PlayerInfo, club_id: int, name: str) -> ClubInfo:
        refusal = await stored.set_owner(self.store, club_id, player.id, names.name_key(name))
        _check(refusal, club_id, name)
        return await self._shown(club_id, player)

    async def set_leader(
        self, player: PlayerInfo, club_id: int, name: str, leader: bool
    ) -> ClubInfo:
        key = names.name_key(name)
        _check(await stored.set_leader(self.store, club_id, player.id, key, leader), club_id, name)
        return await self._shown(club_id, player)

    async def new_invite(self, player: PlayerInfo, club_id: int) -> ClubInfo:
        code = new_code()
        _check(await stored.new_invite(self.store, club_id, player.id, code), club_id)
        return await self._shown(club_id, player)

    async def _shown(self, club_id: int, asker: PlayerInfo | None) -> ClubInfo:
        club = await stored.view(self.store, club_id, None if asker is None else asker.id)
        if club is None:
            _refused(ClubRefusal.NO_CLUB, club_id)
        assert club is not None
        return club


def _check(refusal: ClubRefusal | None, club_id: int, name: str | None = None) -> None:
    if refusal is not None:
        _refused(refusal, club_id, name)


def _with(club: ClubInfo, **changes: object) -> ClubInfo:
    return replace(club, **changes)  # type: ignore[arg-type]
