"""Clubs in the database (v1.4, PROTOCOL.md "Clubs"): clubs, members and leaders, each
club's current invitation code (shown to its leaders only), wrong codes counted per
player. Plain async functions over a `Store`; each change is checked and made in one
transaction. A quota (clubs owned) is counted under a lock of the player's row on
PostgreSQL, so two nodes cannot both pass it; SQLite's one writer serialises them anyway."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum

from sqlalchemy import delete, func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from server.domain.clubs import MAX_OWNED, ClubInfo, Role, leads
from server.store import club_events
from server.store.models import Club, ClubMember, CodeGuess, Player, Schedule
from server.store.repository import Store


class ClubRefusal(StrEnum):
    """Why a club step changed nothing."""

    NO_CLUB = "no_club"
    NO_PLAYER = "no_player"
    NAME_TAKEN = "name_taken"
    OWNED = "clubs_owned"  # the new owner owns MAX_OWNED already
    ROLE = "club_role"  # the sender lacks the role
    NOT_MEMBER = "not_club_member"  # the named player is no member
    OWNER_STAYS = "owner_stays"  # the owner leaves before handing over
    KICK_SELF = "kick_self"
    OWNER_NO_LEADER = "owner_no_leader"  # the owner is never among `leaders`


@dataclass(frozen=True, slots=True)
class NewClub:
    name: str
    name_key: str
    description: str
    invite: str
    now: datetime


async def _owned(s: AsyncSession, player_id: int) -> int:
    """Clubs the player owns, the player's row locked (PostgreSQL) until the commit."""
    await s.execute(select(Player.id).where(Player.id == player_id).with_for_update())
    n = await s.scalar(select(func.count()).select_from(Club).where(Club.owner_id == player_id))
    return int(n or 0)


async def create(store: Store, owner_id: int, new: NewClub) -> int | ClubRefusal:
    """The new club's id, its creator its owner and first member; or OWNED, NAME_TAKEN."""
    async with store._session() as s:
        if await _owned(s, owner_id) >= MAX_OWNED:
            return ClubRefusal.OWNED
        club = Club(
            name=new.name,
            name_key=new.name_key,
            description=new.description,
            owner_id=owner_id,
            invite=new.invite,
            created_at=new.now,
        )
        s.add(club)
        try:
            await s.flush()
        except IntegrityError:
            await s.rollback()
            return ClubRefusal.NAME_TAKEN
        s.add(ClubMember(club_id=club.id, player_id=owner_id, leader=False, joined_at=new.now))
        await s.commit()
        return club.id


async def _role(s: AsyncSession, club: Club, player_id: int | None) -> Role | None:
    if player_id is None:
        return None
    if club.owner_id == player_id:
        return Role.OWNER
    row = await s.scalar(
        select(ClubMember).where(ClubMember.club_id == club.id, ClubMember.player_id == player_id)
    )
    if row is None:
        return None
    return Role.LEADER if row.leader else Role.MEMBER


async def _info(s: AsyncSession, club: Club, asker_id: int | None) -> ClubInfo:
    return (await _infos(s, [club], asker_id))[0]


async def _infos(s: AsyncSession, clubs: list[Club], asker_id: int | None) -> list[ClubInfo]:
    """The clubs as the asker sees them, in four statements whatever their number (a
    public list of 100 costs no more than one club)."""
    ids = [c.id for c in clubs]
    owner_ids = {c.owner_id for c in clubs if c.owner_id is not None}
    owned = select(Player.id, Player.name).where(Player.id.in_(owner_ids))
    owners: dict[int, str] = {row[0]: row[1] for row in await s.execute(owned)}
    leaders: dict[int, list[str]] = {i: [] for i in ids}
    led = (
        select(ClubMember.club_id, Player.name)
        .join(Player, Player.id == ClubMember.player_id)
        .where(ClubMember.club_id.in_(ids), ClubMember.leader.is_(True))
        .order_by(ClubMember.id)
    )
    for row in await s.execute(led):
        leaders[row[0]].append(row[1])
    counted = (
        select(ClubMember.club_id, func.count())
        .where(ClubMember.club_id.in_(ids))
        .group_by(ClubMember.club_id)
    )
    counts: dict[int, int] = {row[0]: int(row[1]) for row in await s.execute(counted)}
    mine: dict[int, bool] = {}
    if asker_id is not None:
        roles = select(ClubMember.club_id, ClubMember.leader).where(
            ClubMember.club_id.in_(ids), ClubMember.player_id == asker_id
        )
        mine = {row[0]: bool(row[1]) for row in await s.execute(roles)}
    infos = []
    for c in clubs:
        role = _role_of(c, asker_id, mine)
        infos.append(
            ClubInfo(
                id=c.id,
                name=c.name,
                description=c.description,
                owner=None if c.owner_id is None else owners.get(c.owner_id),
                leaders=tuple(leaders[c.id]),
                members=counts.get(c.id, 0),
                created_at=c.created_at,
                role=role,
                invite=c.invite if leads(role) else None,
            )
        )
    return infos


def _role_of(club: Club, asker_id: int | None, mine: dict[int, bool]) -> Role | None:
    if asker_id is not None and club.owner_id == asker_id:
        return Role.OWNER
    if club.id not in mine:
        return None
    return Role.LEADER if mine[club.id] else Role.MEMBER


async def view(store: Store, club_id: int, asker_id: int | None) -> ClubInfo | None:
    async with store._session() as s:
        club = await s.get(Club, club_id)
        return None if club is None else await _info(s, club, asker_id)


async def member_names(store: Store, club_id: int, offset: int, limit: int) -> tuple[str, ...]:
    """The members offset+1..offset+limit, in order of joining."""
    async with store._session() as s:
        names = await s.scalars(
            select(Player.name)
            .join(ClubMember, ClubMember.player_id == Player.id)
            .where(ClubMember.club_id == club_id)
            .order_by(ClubMember.id)
            .offset(offset)
            .limit(limit)
        )
        return tuple(names)


async def listed(
    store: Store, offset: int, limit: int, asker_id: int | None, mine: bool
) -> tuple[int, list[ClubInfo]]:
    """(total, the clubs offset+1..offset+limit in order of id); `mine`: the asker's."""
    async with store._session() as s:
        query = select(Club)
        if mine:
            query = query.where(
                Club.id.in_(select(ClubMember.club_id).where(ClubMember.player_id == asker_id))
            )
        total = await s.scalar(select(func.count()).select_from(query.subquery()))
        clubs = await s.scalars(query.order_by(Club.id).offset(offset).limit(limit))
        return int(total or 0), await _infos(s, list(clubs), asker_id)


async def join(store: Store, code: str, player_id: int, now: datetime) -> int | None:
    """The id of the club whose current code is `code` (compared exactly), the player a
    member of it (a member already: unchanged); None for no such code."""
    async with store._session() as s:
        club = await s.scalar(select(Club).where(Club.invite == code))
        if club is None:
            return None
        if await _role(s, club, player_id) is None:
            s.add(ClubMember(club_id=club.id, player_id=player_id, leader=False, joined_at=now))
            try:
                await s.commit()
            except IntegrityError:  # joined at once on another connection
                await s.rollback()
        return club.id


async def _named(s: AsyncSession, name_key: str) -> Player | None:
    return await s.scalar(select(Player).where(Player.name_key == name_key))


async def _club_and_role(
    s: AsyncSession, club_id: int, player_id: int
) -> tuple[Club, Role | None] | ClubRefusal:
    club = await s.get(Club, club_id, with_for_update=True)
    if club is None:
        return ClubRefusal.NO_CLUB
    return club, await _role(s, club, player_id)


async def _as_leader(
    s: AsyncSession, club_id: int, actor_id: int
) -> tuple[Club, Role] | ClubRefusal:
    """The club and the actor's role when the actor is its owner or a leader."""
    found = await _club_and_role(s, club_id, actor_id)
    if isinstance(found, ClubRefusal):
        return found
    club, role = found
    if role not in (Role.OWNER, Role.LEADER):
        return ClubRefusal.ROLE
    return club, role


async def _target(s: AsyncSession, club: Club, name_key: str) -> tuple[Player, Role] | ClubRefusal:
    player = await _named(s, name_key)
    if player is None:
        return ClubRefusal.NO_PLAYER
    role = await _role(s, club, player.id)
    return ClubRefusal.NOT_MEMBER if role is None else (player, role)


async def leave(store: Store, club_id: int, player_id: int) -> ClubRefusal | None:
    async with store._session() as s:
        found = await _club_and_role(s, club_id, player_id)
        if isinstance(found, ClubRefusal):
            return found
        club, role = found
        if role is None:
            return ClubRefusal.ROLE
        if role is Role.OWNER:
            return ClubRefusal.OWNER_STAYS
        await _remove(s, club.id, player_id)
        return None


async def kick(store: Store, club_id: int, actor_id: int, name_key: str) -> ClubRefusal | None:
    """A leader kicks a member; the owner kicks leaders too; nobody kicks oneself."""
    async with store._session() as s:
        found = await _as_leader(s, club_id, actor_id)
        if isinstance(found, ClubRefusal):
            return found
        club, role = found
        target = await _target(s, club, name_key)
        if isinstance(target, ClubRefusal):
            return target
        player, their_role = target
        if player.id == actor_id:
            return ClubRefusal.KICK_SELF
        if their_role is not Role.MEMBER and role is not Role.OWNER:
            return ClubRefusal.ROLE
        await _remove(s, club.id, player.id)
        return None


async def set_owner(store: Store, club_id: int, actor_id: int, name_key: str) -> ClubRefusal | None:
    """The owner hands the club to a member (within MAX_OWNED); the old owner leads."""
    async with store._session() as s:
        found = await _owner_naming(s, club_id, actor_id, name_key)
        if isinstance(found, ClubRefusal):
            return found
        club, player, _ = found
        if player.id == actor_id:
            return None  # the owner already
        if await _owned(s, player.id) >= MAX_OWNED:
            return ClubRefusal.OWNED
        club.owner_id = player.id
        await _mark(s, club.id, player.id, False)
        await _mark(s, club.id, actor_id, True)
        await s.commit()
        return None


async def _owner_naming(
    s: AsyncSession, club_id: int, actor_id: int, name_key: str
) -> tuple[Club, Player, Role] | ClubRefusal:
    """The club as its owner `actor_id` acts on it, and the member named `name_key` with
    their role; NO_CLUB, ROLE (the actor is not the owner), NO_PLAYER or NOT_MEMBER."""
    found = await _club_and_role(s, club_id, actor_id)
    if isinstance(found, ClubRefusal):
        return found
    club, role = found
    if role is not Role.OWNER:
        return ClubRefusal.ROLE
    target = await _target(s, club, name_key)
    if isinstance(target, ClubRefusal):
        return target
    player, their_role = target
    return club, player, their_role


async def _remove(s: AsyncSession, club_id: int, player_id: int) -> None:
    """The player is a member no more (leaving or kicked); committed."""
    await s.execute(
        delete(ClubMember).where(ClubMember.club_id == club_id, ClubMember.player_id == player_id)
    )
    await s.commit()


async def _mark(s: AsyncSession, club_id: int, player_id: int, leader: bool) -> None:
    await s.execute(
        update(ClubMember)
        .where(ClubMember.club_id == club_id, ClubMember.player_id == player_id)
        .values(leader=leader)
    )


async def set_leader(
    store: Store, club_id: int, actor_id: int, name_key: str, leader: bool
) -> ClubRefusal | None:
    async with store._session() as s:
        found = await _owner_naming(s, club_id, actor_id, name_key)
        if isinstance(found, ClubRefusal):
            return found
        club, player, their_role = found
        if their_role is Role.OWNER:
            return ClubRefusal.OWNER_NO_LEADER
        await _mark(s, club.id, player.id, leader)
        await s.commit()
        return None


async def new_invite(store: Store, club_id: int, actor_id: int, code: str) -> ClubRefusal | None:
    """A leader's new code; the old one stops working at once."""
    async with store._session() as s:
        found = await _as_leader(s, club_id, actor_id)
        if isinstance(found, ClubRefusal):
            return found
        club, _ = found
        club.invite = code
        await s.commit()
        return None


async def within_limits(store: Store, limits: tuple[int, ...], now: datetime) -> None:
    """ClubEventsFull unless one more event of each of these clubs fits (a check before a
    creation's costly part; the creation checks again, atomically)."""
    async with store._session() as s:
        await club_events.within_limits(s, limits, now)


async def roles(store: Store, player_id: int) -> tuple[frozenset[int], frozenset[int]]:
    """(the clubs the player belongs to, those the player leads: owner or leader)."""
    async with store._session() as s:
        return await club_events.roles(s, player_id)


async def missing(store: Store, club_ids: tuple[int, ...]) -> list[int]:
    """The ids of `club_ids` no club has, in order."""
    async with store._session() as s:
        return await club_events.missing(s, club_ids)


async def guesses(store: Store, player_id: int, since: datetime) -> int:
    """Wrong codes given by the player since `since` (any node)."""
    async with store._session() as s:
        n = await s.scalar(
            select(func.count())
            .select_from(CodeGuess)
            .where(CodeGuess.player_id == player_id, CodeGuess.at > since)
        )
        return int(n or 0)


async def count_guess(store: Store, player_id: int, now: datetime) -> None:
    """A wrong code given (guesses older than an hour, past any window, are deleted)."""
    async with store._session() as s:
        await s.execute(delete(CodeGuess).where(CodeGuess.at < now - timedelta(hours=1)))
        s.add(CodeGuess(player_id=player_id, at=now))
        await s.commit()


async def remove_player(s: AsyncSession, player_id: int) -> None:
    """A deleted account (PROTOCOL.md "Clubs"), within the erasure's transaction
    (store/accounts.py): out of every club; a club it owned passes to its earliest-joined
    leader, else its earliest-joined member (past MAX_OWNED if need be), else keeps its
    id and name with no owner and no code, and its schedules are cancelled."""
    owned = await s.scalars(
        select(Club).where(Club.owner_id == player_id).order_by(Club.id).with_for_update()
    )
    for club in list(owned):
        heir = await s.scalar(
            select(ClubMember)
            .where(ClubMember.club_id == club.id, ClubMember.player_id != player_id)
            .order_by(ClubMember.leader.desc(), ClubMember.id)
            .limit(1)
        )
        if heir is None:
            club.owner_id, club.invite = None, None
            await s.execute(
                update(Schedule).where(Schedule.club_id == club.id).values(cancelled=True)
            )
        else:
            club.owner_id = heir.player_id
            heir.leader = False
    await s.execute(delete(ClubMember).where(ClubMember.player_id == player_id))
