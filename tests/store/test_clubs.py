"""Clubs in the database (server/store/clubs.py), on SQLite and PostgreSQL: made within
the quota of clubs owned, seen by each asker with its role (the code only by leaders),
listed, joined by the current code, left, kicked, handed over, leaders named, codes
renewed; wrong codes counted; a deleted account's clubs passed on."""

from __future__ import annotations

from datetime import timedelta

from server.domain.clubs import MAX_OWNED, Role
from server.domain.model import PlayerInfo
from server.domain.names import name_key
from server.domain.schedule import NewSchedule
from server.store import accounts, schedules
from server.store import clubs as stored
from server.store.clubs import ClubRefusal, NewClub
from server.store.repository import Store
from tests.support.store_records import NOW


def club(name: str, invite: str | None = None) -> NewClub:
    return NewClub(name, name_key(name), f"about {name}", invite or f"code-{name}", NOW)


async def members(store: Store, *names: str) -> list[PlayerInfo]:
    return [await store.create_player(n, f"h-{n}", NOW) for n in names]


async def test_a_club_is_made_within_the_quota_under_a_free_name(store: Store) -> None:
    (ana,) = await members(store, "ana")
    ids = [await stored.create(store, ana.id, club(f"Club{i}")) for i in range(MAX_OWNED)]
    assert all(isinstance(i, int) for i in ids)
    assert await stored.create(store, ana.id, club("OneMore")) is ClubRefusal.OWNED
    (bob,) = await members(store, "bob")
    assert await stored.create(store, bob.id, club("CLUB0")) is ClubRefusal.NAME_TAKEN
    seen = await stored.view(store, ids[0], ana.id)  # type: ignore[arg-type]
    assert seen is not None
    assert (seen.name, seen.owner, seen.members, seen.role, seen.invite) == (
        "Club0",
        "ana",
        1,
        Role.OWNER,
        "code-Club0",
    )
    assert await stored.view(store, 10_000, ana.id) is None


async def test_members_join_by_the_current_code_and_see_by_their_role(store: Store) -> None:
    ana, bob, cy = await members(store, "ana", "bob", "cy")
    cid = await stored.create(store, ana.id, club("Owls", "old-code"))
    assert isinstance(cid, int)
    assert await stored.join(store, "old-code", bob.id, NOW) == cid
    assert await stored.join(store, "old-code", bob.id, NOW) == cid  # a member already
    assert await stored.join(store, "OLD-CODE", cy.id, NOW) is None  # compared exactly
    assert await stored.new_invite(store, cid, bob.id, "x") is ClubRefusal.ROLE  # a member
    assert await stored.new_invite(store, cid, ana.id, "new-code") is None
    assert await stored.join(store, "old-code", cy.id, NOW) is None
    assert await stored.join(store, "new-code", cy.id, NOW) == cid
    assert await stored.member_names(store, cid, 0, 10) == ("ana", "bob", "cy")
    assert await stored.member_names(store, cid, 1, 1) == ("bob",)
    as_bob = await stored.view(store, cid, bob.id)
    assert as_bob is not None and (as_bob.role, as_bob.invite, as_bob.members) == (
        Role.MEMBER,
        None,
        3,
    )
    anyone = await stored.view(store, cid, None)
    assert anyone is not None and anyone.role is None and anyone.invite is None
    other = await stored.create(store, cy.id, club("Larks"))
    assert await stored.listed(store, 0, 10, bob.id, mine=True) == (1, [as_bob])
    total, page = await stored.listed(store, 1, 1, None, mine=False)
    assert total == 2 and [c.id for c in page] == [other]
    assert await stored.roles(store, cy.id) == (frozenset({cid, other}), frozenset({other}))
    assert await stored.missing(store, (cid, 10_000, other)) == [10_000]


async def test_leaders_kick_members_and_the_owner_names_leaders_and_hands_over(
    store: Store,
) -> None:
    ana, bob, cy, dee = await members(store, "ana", "bob", "cy", "dee")
    cid = await stored.create(store, ana.id, club("Owls", "code"))
    assert isinstance(cid, int)
    for p in (bob, cy, dee):
        await stored.join(store, "code", p.id, NOW)
    assert await stored.set_leader(store, cid, bob.id, "cy", True) is ClubRefusal.ROLE
    assert await stored.set_leader(store, cid, ana.id, "bob", True) is None
    assert await stored.set_leader(store, cid, ana.id, "ana", True) is ClubRefusal.OWNER_NO_LEADER
    assert await stored.set_leader(store, cid, ana.id, "nobody", True) is ClubRefusal.NO_PLAYER
    led = await stored.view(store, cid, bob.id)
    assert led is not None and led.leaders == ("bob",) and led.invite == "code"
    assert await stored.kick(store, cid, bob.id, "bob") is ClubRefusal.KICK_SELF
    assert await stored.kick(store, cid, bob.id, "ana") is ClubRefusal.ROLE  # not the owner
    assert await stored.kick(store, cid, cy.id, "dee") is ClubRefusal.ROLE  # a member
    assert await stored.kick(store, cid, bob.id, "dee") is None
    assert await stored.kick(store, cid, bob.id, "dee") is ClubRefusal.NOT_MEMBER
    assert await stored.kick(store, 10_000, bob.id, "cy") is ClubRefusal.NO_CLUB
    assert await stored.leave(store, cid, ana.id) is ClubRefusal.OWNER_STAYS
    assert await stored.set_owner(store, cid, bob.id, "cy") is ClubRefusal.ROLE
    assert await stored.set_owner(store, cid, ana.id, "cy") is None
    handed = await stored.view(store, cid, ana.id)
    assert handed is not None and (handed.owner, handed.role) == ("cy", Role.LEADER)
    assert handed.leaders == ("ana", "bob")
    assert await stored.leave(store, cid, ana.id) is None
    assert await stored.leave(store, cid, ana.id) is ClubRefusal.ROLE  # no member now
    assert await stored.member_names(store, cid, 0, 10) == ("bob", "cy")


async def test_a_new_owner_stays_within_the_quota(store: Store) -> None:
    ana, bob = await members(store, "ana", "bob")
    cid = await stored.create(store, ana.id, club("Owls", "code"))
    assert isinstance(cid, int)
    for i in range(MAX_OWNED):
        await stored.create(store, bob.id, club(f"Bobs{i}"))
    await stored.join(store, "code", bob.id, NOW)
    assert await stored.set_owner(store, cid, ana.id, "bob") is ClubRefusal.OWNED
    assert await stored.set_owner(store, cid, ana.id, "ana") is None  # the owner already


async def test_wrong_codes_are_counted_per_player_within_the_window(store: Store) -> None:
    ana, bob = await members(store, "ana", "bob")
    for minutes in (0, 1, 2):
        await stored.count_guess(store, ana.id, NOW + timedelta(minutes=minutes))
    assert await stored.guesses(store, ana.id, NOW) == 2  # after NOW only
    assert await stored.guesses(store, bob.id, NOW - timedelta(1)) == 0
    await stored.count_guess(store, bob.id, NOW + timedelta(hours=2))
    assert await stored.guesses(store, ana.id, NOW - timedelta(1)) == 0  # old ones deleted


async def test_a_deleted_owners_clubs_pass_to_a_leader_a_member_or_nobody(store: Store) -> None:
    ana, bob, cy = await members(store, "ana", "bob", "cy")
    led = await stored.create(store, ana.id, club("Led", "c1"))
    plain = await stored.create(store, ana.id, club("Plain", "c2"))
    alone = await stored.create(store, ana.id, club("Alone", "c3"))
    assert isinstance(led, int) and isinstance(plain, int) and isinstance(alone, int)
    await stored.join(store, "c1", bob.id, NOW)
    await stored.join(store, "c1", cy.id, NOW)
    await stored.set_leader(store, led, ana.id, "cy", True)
    await stored.join(store, "c2", bob.id, NOW)
    weekly = NewSchedule("Weekly", "gaps", {}, NOW, 604_800, 3_600, club_id=alone)
    made = await schedules.create_schedule(store, weekly, NOW)
    await accounts.erase(store, ana.id, f"deleted-{ana.id}", NOW)
    views = [await stored.view(store, c, None) for c in (led, plain, alone)]
    assert [(v.owner, v.members) for v in views if v is not None] == [
        ("cy", 2),  # the earliest leader, a leader no more
        ("bob", 1),
        (None, 0),
    ]
    assert views[0] is not None and views[0].leaders == ()
    gone = await schedules.schedule(store, made.id)
    assert gone is not None and gone.cancelled
    assert await stored.join(store, "c3", bob.id, NOW) is None  # no code any more
