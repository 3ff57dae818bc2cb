"""Clubs (v1.4, PROTOCOL.md "Clubs"), the competition part on SQLite and PostgreSQL:
create within the quota, join by code, leave, hand over, leaders, kick, new code; every
refusal changes nothing (but a wrong code is counted); two nodes on one database agree."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import event, select

from server.competition.errors import CompetitionError
from server.competition.service import Competition
from server.domain.clubs import CODE_LENGTH, Role
from server.domain.model import PlayerInfo
from server.store.models import Club, ClubMember
from server.store.repository import Store
from tests.competition.conftest import Recorder
from tests.support.harness import Clock


async def _players(comp: Competition, *names: str) -> list[PlayerInfo]:
    return [(await comp.players.register(n))[0] for n in names]


async def _state(store: Store) -> Any:
    """Everything a club verb could change (the join codes included)."""
    async with store._session() as s:
        clubs = [
            (c.id, c.name, c.description, c.owner_id, c.invite)
            for c in await s.scalars(select(Club).order_by(Club.id))
        ]
        members = [
            (m.id, m.club_id, m.player_id, m.leader)
            for m in await s.scalars(select(ClubMember).order_by(ClubMember.id))
        ]
        return clubs, members


async def _refused(comp: Competition, code: str, reason: str, call: Any) -> CompetitionError:
    before = await _state(comp.store)
    with pytest.raises(CompetitionError) as e:
        await call
    assert (e.value.code, e.value.reason) == (code, reason)
    assert await _state(comp.store) == before
    return e.value


async def test_create_names_owner_and_quota(comp: Competition) -> None:
    ana, bo = await _players(comp, "Ana", "Bo")
    club = await comp.clubs.create(ana, "Clube", "Sextas à noite")
    assert (club.name, club.owner, club.leaders, club.members) == ("Clube", "Ana", (), 1)
    assert club.role is Role.OWNER and club.description == "Sextas à noite"
    assert club.invite is not None and len(club.invite) == CODE_LENGTH
    assert club.invite.isalnum() and club.invite.isascii()
    await _refused(comp, "name_taken", "name_taken", comp.clubs.create(bo, "CLUBE", None))
    await _refused(comp, "bad_request", "bad_name", comp.clubs.create(bo, "Jоão", None))
    await _refused(comp, "bad_request", "bad_name", comp.clubs.create(bo, "a b", None))
    await _refused(comp, "bad_request", "bad_description", comp.clubs.create(bo, "X", "a\x07"))
    await _refused(comp, "bad_request", "bad_description", comp.clubs.create(bo, "X", "a" * 501))
    await comp.clubs.create(ana, "Two", None)
    await comp.clubs.create(ana, "Three", "")
    e = await _refused(comp, "rate_limited", "clubs_owned", comp.clubs.create(ana, "Four", None))
    assert e.extra == {"limit": "clubs_owned"} and e.params == {"max": 3}
    assert (await comp.clubs.create(bo, "Four", None)).owner == "Bo"


async def test_join_by_code_and_a_new_code_kills_the_old(comp: Competition) -> None:
    ana, bo, cy = await _players(comp, "Ana", "Bo", "Cy")
    made = await comp.clubs.create(ana, "Clube", None)
    assert made.invite is not None
    joined = await comp.clubs.join(bo, made.invite)
    assert (joined.role, joined.members, joined.invite) == (Role.MEMBER, 2, None)
    again = await comp.clubs.join(bo, made.invite)
    assert again.members == 2  # a member joining again changes nothing
    await _refused(comp, "forbidden", "club_role", comp.clubs.new_invite(bo, made.id))
    fresh = await comp.clubs.new_invite(ana, made.id)
    assert fresh.invite is not None and fresh.invite != made.invite
    await _refused(comp, "not_found", "no_club_code", comp.clubs.join(cy, made.invite))
    await _refused(comp, "not_found", "no_club_code", comp.clubs.join(cy, fresh.invite.lower()))
    assert (await comp.clubs.join(cy, fresh.invite)).members == 3
    await _refused(comp, "not_found", "no_club", comp.clubs.new_invite(ana, 999))


async def test_wrong_codes_are_limited_per_player(comp: Competition, clock: Clock) -> None:
    ana, bo, cy = await _players(comp, "Ana", "Bo", "Cy")
    made = await comp.clubs.create(ana, "Clube", None)
    assert made.invite is not None
    for i in range(10):
        await _refused(comp, "not_found", "no_club_code", comp.clubs.join(bo, f"wrong{i}"))
    e = await _refused(comp, "rate_limited", "code_guesses", comp.clubs.join(bo, made.invite))
    assert e.extra == {"limit": "codes"}  # even the right code, until the minute is over
    assert (await comp.clubs.join(cy, made.invite)).members == 2  # per player
    clock.advance(61)
    assert (await comp.clubs.join(bo, made.invite)).members == 3


async def test_leave_hand_over_leaders_and_kick(comp: Competition) -> None:
    ana, bo, cy, di = await _players(comp, "Ana", "Bo", "Cy", "Di")
    club = await comp.clubs.create(ana, "Clube", None)
    assert club.invite is not None
    for p in (bo, cy, di):
        await comp.clubs.join(p, club.invite)
    cid = club.id
    await _refused(comp, "forbidden", "owner_stays", comp.clubs.leave(ana, cid))
    await _refused(comp, "forbidden", "club_role", comp.clubs.set_leader(bo, cid, "Cy", True))
    await _refused(
        comp, "forbidden", "owner_no_leader", comp.clubs.set_leader(ana, cid, "ana", True)
    )
    await _refused(comp, "not_found", "no_player", comp.clubs.set_leader(ana, cid, "Nobody", True))
    led = await comp.clubs.set_leader(ana, cid, "bo", True)  # names as names are compared
    assert led.leaders == ("Bo",)
    await _refused(comp, "forbidden", "club_role", comp.clubs.kick(cy, cid, "Di"))
    await _refused(comp, "forbidden", "kick_self", comp.clubs.kick(bo, cid, "Bo"))
    await _refused(comp, "forbidden", "club_role", comp.clubs.kick(bo, cid, "Ana"))
    await comp.clubs.set_leader(ana, cid, "Cy", True)
    await _refused(comp, "forbidden", "club_role", comp.clubs.kick(bo, cid, "Cy"))
    kicked = await comp.clubs.kick(bo, cid, "Di")  # a leader kicks a member
    assert kicked.members == 3 and kicked.role is Role.LEADER
    await _refused(comp, "forbidden", "not_club_member", comp.clubs.kick(bo, cid, "Di"))
    await _refused(comp, "forbidden", "not_club_member", comp.clubs.set_owner(ana, cid, "Di"))
    await _refused(comp, "forbidden", "club_role", comp.clubs.leave(di, cid))
    again = await comp.clubs.new_invite(bo, cid)
    assert again.invite is not None
    assert (await comp.clubs.join(di, again.invite)).members == 4  # kicked: may join again
    out = await comp.clubs.kick(ana, cid, "Cy")  # the owner kicks a leader
    assert out.leaders == ("Bo",) and out.members == 3
    await _refused(comp, "forbidden", "club_role", comp.clubs.set_owner(bo, cid, "Di"))
    handed = await comp.clubs.set_owner(ana, cid, "Di")
    assert (handed.owner, handed.leaders, handed.role) == ("Di", ("Ana", "Bo"), Role.LEADER)
    left = await comp.clubs.leave(ana, cid)
    assert (left.role, left.members, left.leaders) == (None, 2, ("Bo",))


async def test_handing_over_respects_the_quota(comp: Competition) -> None:
    ana, bo = await _players(comp, "Ana", "Bo")
    club = await comp.clubs.create(ana, "Clube", None)
    assert club.invite is not None
    await comp.clubs.join(bo, club.invite)
    for name in ("B1", "B2", "B3"):
        await comp.clubs.create(bo, name, None)
    e = await _refused(
        comp, "rate_limited", "clubs_owned", comp.clubs.set_owner(ana, club.id, "Bo")
    )
    assert e.extra == {"limit": "clubs_owned"}


async def test_lists_and_pages(comp: Competition) -> None:
    ana, bo, cy = await _players(comp, "Ana", "Bo", "Cy")
    one = await comp.clubs.create(ana, "One", None)
    two = await comp.clubs.create(bo, "Two", None)
    assert one.invite is not None
    await comp.clubs.join(bo, one.invite)
    await comp.clubs.join(cy, one.invite)
    total, items = await comp.clubs.listed(None, 0, 100, False)
    assert total == 2 and [c.name for c in items] == ["One", "Two"]
    assert all(c.role is None and c.invite is None for c in items)
    total, items = await comp.clubs.listed(cy, 0, 100, True)
    assert total == 1 and [(c.name, c.role) for c in items] == [("One", Role.MEMBER)]
    total, items = await comp.clubs.listed(bo, 1, 1, True)
    assert total == 2 and [(c.name, c.role) for c in items] == [("Two", Role.OWNER)]
    shown = await comp.clubs.show(one.id, None, 1, 1)
    assert shown.member_names == ("Bo",) and shown.members == 3
    assert (await comp.clubs.show(one.id, ana)).member_names == ("Ana", "Bo", "Cy")
    assert (await comp.clubs.show(two.id, ana)).role is None
    await _refused(comp, "unauthorized", "sign_in_first", comp.clubs.listed(None, 0, 10, True))
    await _refused(comp, "bad_request", "bad_page", comp.clubs.listed(None, 0, 101, False))
    await _refused(comp, "not_found", "no_club", comp.clubs.show(99, None))


async def test_two_nodes_agree_on_membership(db_url: str, clock: Clock) -> None:
    """Two competitions on two connections to one database (as two nodes): a member who
    joins on one is a member on the other at once, and a code made on one kills the old
    code on the other."""
    first, second = await Store.open(db_url), await Store.open(db_url)
    try:
        a = Competition.build(first, Recorder(), clock)
        b = Competition.build(second, Recorder(), clock)
        ana, _ = await a.players.register("Ana")
        bo, _ = await b.players.register("Bo")
        club = await a.clubs.create(ana, "Clube", None)
        assert club.invite is not None
        await b.clubs.join(bo, club.invite)
        seen = await a.clubs.show(club.id, ana)
        assert seen.member_names == ("Ana", "Bo")
        fresh = await b.clubs.new_invite(ana, club.id)
        with pytest.raises(CompetitionError) as e:
            await a.clubs.join(bo, club.invite)
        assert e.value.code == "not_found" and fresh.invite is not None
        assert (await a.clubs.join(bo, fresh.invite)).members == 2
    finally:
        await first.close()
        await second.close()


async def test_a_deleted_account_leaves_its_clubs(comp: Competition) -> None:
    """Out of every club; an owned club passes to the earliest-joined leader, else the
    earliest-joined member (even past the quota), else keeps its name with no owner and
    no code."""
    ana, bo, cy, di = await _players(comp, "Ana", "Bo", "Cy", "Di")
    first = await comp.clubs.create(ana, "First", None)
    second = await comp.clubs.create(ana, "Second", None)
    alone = await comp.clubs.create(ana, "Alone", None)
    assert first.invite is not None and second.invite is not None
    for p in (bo, cy, di):
        await comp.clubs.join(p, first.invite)
    await comp.clubs.set_leader(ana, first.id, "Di", True)
    await comp.clubs.join(bo, second.invite)
    for name in ("B1", "B2", "B3"):
        await comp.clubs.create(bo, name, None)
    await comp.accounts.delete(ana, "Ana")
    one = await comp.clubs.show(first.id, di)
    assert (one.owner, one.leaders, one.member_names, one.role) == (
        "Di",
        (),
        ("Bo", "Cy", "Di"),
        Role.OWNER,
    )
    two = await comp.clubs.show(second.id, bo)
    assert (two.owner, two.role, two.members) == ("Bo", Role.OWNER, 1)  # a 4th, inherited
    left = await comp.clubs.show(alone.id, None)
    assert (left.name, left.owner, left.members) == ("Alone", None, 0)
    async with comp.store._session() as s:
        club = await s.get(Club, alone.id)
        assert club is not None and club.invite is None


async def test_a_list_costs_the_same_queries_whatever_its_length(comp: Competition) -> None:
    """The public `clubs` list reads its page in a fixed number of statements (a count;
    not one round per club): a list of 100 costs what a list of 1 does."""
    players = await _players(comp, "Ana", "Bo", "Cy")
    for i, p in enumerate(players * 2):
        made = await comp.clubs.create(p, f"C{i}", None)
        assert made.invite is not None
        await comp.clubs.join(players[(i + 1) % 3], made.invite)
    await comp.clubs.set_leader(players[0], 1, "Bo", True)
    statements: list[str] = []

    def seen(conn: Any, cursor: Any, statement: str, *rest: Any) -> None:
        statements.append(statement)

    engine = comp.store.engine.sync_engine
    event.listen(engine, "before_cursor_execute", seen)
    try:
        total, items = await comp.clubs.listed(players[0], 0, 1, False)
        one = len(statements)
        statements.clear()
        total, items = await comp.clubs.listed(players[0], 0, 100, False)
        assert len(statements) == one and total == 6 and len(items) == 6
    finally:
        event.remove(engine, "before_cursor_execute", seen)
    assert [(c.name, c.owner, c.leaders, c.members, c.role) for c in items[:2]] == [
        ("C0", "Ana", ("Bo",), 2, Role.OWNER),
        ("C1", "Bo", (), 2, None),
    ]
    assert items[2].role is Role.MEMBER  # Cy's club, which Ana joined
