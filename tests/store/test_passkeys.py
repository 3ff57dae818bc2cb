"""Passkeys in the database (server/store/passkeys.py), on SQLite and PostgreSQL: one user
handle per player, challenges kept as hashes and used up once, credentials held once,
sign counts moved by a conditional update, passkeys removed one or all."""

from __future__ import annotations

from datetime import timedelta

from server.store import passkeys as stored
from server.store.repository import Store
from tests.support.store_records import NOW

LATER = NOW + timedelta(minutes=1)


async def test_a_player_has_one_user_handle(store: Store) -> None:
    ana = await store.create_player("ana", "h-ana", NOW)
    assert await stored.handle(store, ana.id) is None
    assert await stored.handle_of(store, ana.id, "first") == "first"
    assert await stored.handle_of(store, ana.id, "second") == "first"
    assert await stored.handle(store, ana.id) == "first"


async def test_a_challenge_is_used_once_for_its_purpose_player_and_time(store: Store) -> None:
    ana = await store.create_player("ana", "h-ana", NOW)
    await stored.issue(store, "c-login", "login", None, NOW)
    await stored.issue(store, "c-reg", "register", ana.id, NOW)
    await stored.issue(store, "c-old", "login", None, NOW)
    assert await stored.use(store, "c-login", "login", None, NOW - timedelta(minutes=5))
    assert not await stored.use(store, "c-login", "login", None, NOW - timedelta(minutes=5))
    assert not await stored.use(store, "c-reg", "register", ana.id + 1, NOW - timedelta(1))
    assert not await stored.use(store, "c-reg", "register", ana.id, NOW - timedelta(1))  # used up
    assert not await stored.use(store, "c-old", "login", None, NOW)  # issued at `since`: too old
    assert not await stored.use(store, "c-never", "login", None, NOW - timedelta(1))


async def test_a_credential_is_held_once_and_found_while_not_removed(store: Store) -> None:
    ana = await store.create_player("ana", "h-ana", NOW)
    bob = await store.create_player("bob", "h-bob", NOW)
    key = await stored.add(store, ana.id, "cred-1", b"cose", 0, "Pixel", NOW)
    assert key is not None and (key.player_id, key.label, key.sign_count) == (ana.id, "Pixel", 0)
    assert key.last_used_at is None and key.public_key == b"cose"
    assert await stored.add(store, bob.id, "cred-1", b"other", 0, None, NOW) is None
    assert await stored.held(store, "cred-1") and not await stored.held(store, "cred-2")
    assert await stored.by_credential(store, "cred-1") == (key, ana)
    second = await stored.add(store, ana.id, "cred-2", b"cose", 0, None, NOW)
    assert second is not None
    assert [p.id for p in await stored.in_force(store, ana.id)] == [key.id, second.id]
    assert await stored.remove(store, bob.id, key.id, LATER) == []  # not bob's
    assert await stored.remove(store, ana.id, key.id, LATER) == [key.id]
    assert await stored.by_credential(store, "cred-1") is None
    assert await stored.held(store, "cred-1")  # held for good
    assert not await stored.in_force_by_id(store, key.id)
    assert await stored.in_force_by_id(store, second.id)
    assert await stored.remove(store, ana.id, None, LATER) == [second.id]
    assert await stored.in_force(store, ana.id) == []


async def test_a_sign_count_must_grow_unless_it_stays_zero(store: Store) -> None:
    ana = await store.create_player("ana", "h-ana", NOW)
    key = await stored.add(store, ana.id, "cred", b"cose", 3, None, NOW)
    assert key is not None
    assert not await stored.used(store, key.id, 3, 3, LATER)  # did not grow: a clone
    assert await stored.used(store, key.id, 3, 7, LATER)
    assert not await stored.used(store, key.id, 3, 9, LATER)  # moved meanwhile from 3
    found = await stored.by_credential(store, "cred")
    assert found is not None and found[0].sign_count == 7 and found[0].last_used_at == LATER
    synced = await stored.add(store, ana.id, "synced", b"cose", 0, None, NOW)
    assert synced is not None
    assert await stored.used(store, synced.id, 0, 0, LATER)  # a count that stays 0
    assert await stored.used(store, synced.id, 0, 0, LATER)
    await stored.remove(store, ana.id, synced.id, LATER)
    assert not await stored.used(store, synced.id, 0, 0, LATER)  # removed
