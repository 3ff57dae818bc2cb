"""Links in the database (server/store/links.py), on SQLite and PostgreSQL: a link
started under a code nobody holds, waiting, approved once, polled within its interval,
its token fetched once; the refusals in between; wrong guesses counted per player or
address."""

from __future__ import annotations

from datetime import datetime, timedelta

from server.domain.accounts import DeviceKind
from server.store import devices
from server.store import links as stored
from server.store.links import KEPT_EXPIRED, LinkRefusal, NewLink
from server.store.repository import Store
from tests.support.store_records import NOW

EXPIRES = NOW + timedelta(minutes=10)


def a_link(code: str = "code", poll: str = "poll", at: datetime = NOW) -> NewLink:
    return NewLink(code, poll, "tablet", at, at + timedelta(minutes=10), 2)


def s(seconds: float) -> datetime:
    return NOW + timedelta(seconds=seconds)


async def test_a_link_is_approved_once_polled_and_fetched_once(store: Store) -> None:
    ana = await store.create_player("ana", "h-ana", NOW)
    assert await stored.start(store, a_link())
    assert not await stored.start(store, a_link(poll="other"))  # the code is held
    waiting = await stored.waiting(store, "code", NOW)
    assert not isinstance(waiting, LinkRefusal) and waiting.label == "tablet"
    assert await stored.poll(store, "poll", "h-token", NOW) is LinkRefusal.PENDING
    assert await stored.poll(store, "poll", "h-token", s(1)) is LinkRefusal.TOO_SOON
    device = await stored.approve(store, "code", ana.id, s(2))
    assert not isinstance(device, LinkRefusal)
    assert (device.player_id, device.kind, device.label) == (ana.id, DeviceKind.LINK, "tablet")
    assert await stored.approve(store, "code", ana.id, s(2)) is LinkRefusal.NOT_FOUND
    assert await stored.waiting(store, "code", s(2)) is LinkRefusal.NOT_FOUND
    fetched = await stored.poll(store, "poll", "h-token", s(2))
    assert isinstance(fetched, tuple) and fetched[0] == ana and fetched[1].id == device.id
    assert await devices.signed_in(store, "h-token") == (ana, fetched[1])
    assert await stored.poll(store, "poll", "h-again", s(4)) is LinkRefusal.NOT_FOUND
    assert await stored.poll(store, "nobody", "h-x", s(4)) is LinkRefusal.NOT_FOUND


async def test_an_expired_link_is_expired_for_a_while_then_gone(store: Store) -> None:
    ana = await store.create_player("ana", "h-ana", NOW)
    assert await stored.start(store, a_link())
    after = EXPIRES + timedelta(seconds=1)
    assert await stored.waiting(store, "code", after) is LinkRefusal.EXPIRED
    assert await stored.approve(store, "code", ana.id, after) is LinkRefusal.EXPIRED
    assert await stored.poll(store, "poll", "h-t", after) is LinkRefusal.EXPIRED
    gone = EXPIRES + KEPT_EXPIRED + timedelta(seconds=3)
    assert await stored.approve(store, "code", ana.id, gone) is LinkRefusal.NOT_FOUND
    assert await stored.poll(store, "poll", "h-t", gone) is LinkRefusal.NOT_FOUND
    assert await stored.start(store, a_link(poll="new", at=gone))  # the old one deleted


async def test_a_link_whose_device_was_revoked_gives_no_token(store: Store) -> None:
    ana = await store.create_player("ana", "h-ana", NOW)
    await stored.start(store, a_link())
    device = await stored.approve(store, "code", ana.id, NOW)
    assert not isinstance(device, LinkRefusal)
    await devices.revoke(store, ana.id, [device.id], None, NOW)
    assert await stored.poll(store, "poll", "h-t", NOW) is LinkRefusal.NOT_FOUND


async def test_guesses_count_per_player_or_address_within_the_window(store: Store) -> None:
    ana = await store.create_player("ana", "h-ana", NOW)
    bob = await store.create_player("bob", "h-bob", NOW)
    for i in range(3):
        await stored.count_guess(store, ana.id, "192.0.2.1", s(i))
    await stored.count_guess(store, bob.id, "192.0.2.9", s(3))
    assert await stored.guesses(store, ana.id, "198.51.100.1", NOW - timedelta(1)) == 3
    assert await stored.guesses(store, bob.id, "192.0.2.1", NOW - timedelta(1)) == 4
    assert await stored.guesses(store, ana.id, "192.0.2.9", s(1)) == 2  # after s(1) only
    await stored.count_guess(store, bob.id, "192.0.2.9", NOW + timedelta(hours=2))
    assert await stored.guesses(store, ana.id, "x", NOW - timedelta(1)) == 0  # old ones deleted
