"""Devices in the database (server/store/devices.py), on SQLite and PostgreSQL: found by a
token's hash while not revoked, seen, listed while in force (a linked device whose token
can no longer be fetched is not), made, and revoked one, all, or all but one."""

from __future__ import annotations

from datetime import timedelta

import pytest

from server.domain.accounts import DeviceKind
from server.store import devices as stored
from server.store import links
from server.store.repository import Store
from tests.support.store_records import NOW

LATER = NOW + timedelta(minutes=5)


async def test_a_token_signs_in_its_device_until_it_is_revoked(store: Store) -> None:
    ana = await store.create_player("ana", "h-first", NOW)
    phone = await stored.add(store, ana.id, "h-phone", DeviceKind.PASSKEY, "phone", NOW)
    assert (phone.player_id, phone.kind, phone.label) == (ana.id, DeviceKind.PASSKEY, "phone")
    found = await stored.signed_in(store, "h-phone")
    assert found == (ana, phone)
    assert await stored.signed_in(store, "h-nobody") is None
    assert await stored.seen(store, phone.id, LATER)
    listed = await stored.in_force(store, ana.id, LATER)
    assert [d.id for d in listed] == [listed[0].id, phone.id] and listed[1].last_seen_at == LATER
    assert await stored.revoke(store, ana.id, [phone.id], None, LATER) == [phone.id]
    assert await stored.signed_in(store, "h-phone") is None
    assert not await stored.seen(store, phone.id, LATER)
    assert await stored.revoked_among(store, [phone.id, listed[0].id]) == {phone.id}
    assert await stored.revoked_among(store, []) == set()


async def test_revoke_all_but_one_all_and_only_the_players_own(store: Store) -> None:
    ana = await store.create_player("ana", "h-ana", NOW)
    bob = await store.create_player("bob", "h-bob", NOW)
    first = (await stored.in_force(store, ana.id, NOW))[0]
    more = [await stored.add(store, ana.id, f"h-{i}", DeviceKind.LINK, None, NOW) for i in (1, 2)]
    bobs = (await stored.in_force(store, bob.id, NOW))[0]
    assert await stored.revoke(store, ana.id, [bobs.id], None, NOW) == []  # not ana's
    assert await stored.revoke(store, ana.id, None, first.id, NOW) == [d.id for d in more]
    assert await stored.revoke(store, ana.id, None, first.id, NOW) == []  # once only
    assert await stored.revoke(store, ana.id, None, None, NOW) == [first.id]
    assert await stored.in_force(store, ana.id, NOW) == []
    assert [d.id for d in await stored.in_force(store, bob.id, NOW)] == [bobs.id]


async def test_a_linked_device_not_fetched_is_in_force_until_its_link_expires(
    store: Store,
) -> None:
    ana = await store.create_player("ana", "h-ana", NOW)
    link = links.NewLink("code", "poll", "tablet", NOW, NOW + timedelta(minutes=10), 2)
    assert await links.start(store, link)
    approved = await links.approve(store, "code", ana.id, NOW)
    assert not isinstance(approved, links.LinkRefusal)
    assert approved.id in [d.id for d in await stored.in_force(store, ana.id, NOW)]
    expired = NOW + timedelta(minutes=11)
    assert approved.id not in [d.id for d in await stored.in_force(store, ana.id, expired)]


async def test_a_token_hash_held_already_is_refused(store: Store) -> None:
    ana = await store.create_player("ana", "h-ana", NOW)
    with pytest.raises(stored.TokenTaken):
        await stored.add(store, ana.id, "h-ana", DeviceKind.TOKEN, None, NOW)
