"""Deleted accounts in the database (server/store/accounts.py), on SQLite and PostgreSQL:
the name goes (its key kept), the admin role ends, open and closed tournaments are told
apart, closed ones gain an erasure; a registration that lost its race is withdrawn."""

from __future__ import annotations

from datetime import timedelta

from server.store import accounts as stored
from server.store.repository import Store
from tests.support.store_records import NOW, new_tournament, playing


async def test_erase_renames_keeps_the_name_and_sorts_the_tournaments(store: Store) -> None:
    ana = await store.create_player("Ana", "h-ana", NOW)
    assert await store.set_admin("ana")
    closed = await store.create_tournament(new_tournament(name="Closed"))
    running = await store.create_tournament(new_tournament(name="Running"))
    for t in (closed, running):
        await store.create_entry(t.id, ana, NOW, NOW + timedelta(minutes=15), playing())
    await store.close_tournament(closed.id, NOW)
    assert not await stored.name_erased(store, "ana")

    later = NOW + timedelta(hours=2)
    erased = await stored.erase(store, ana.id, f"deleted-{ana.id}", later)

    assert erased == stored.Erased([running.id], [closed.id])
    assert await stored.name_erased(store, "ANA") and not await stored.name_erased(store, "bob")
    renamed = await store.player_by_name(f"deleted-{ana.id}")
    assert renamed is not None and renamed.id == ana.id and not renamed.admin
    assert await store.player_by_name("Ana") is None
    assert await stored.of_tournament(store, closed.id) == [(ana.id, later)]
    assert await stored.of_tournament(store, running.id) == []
    assert await stored.erase(store, ana.id, f"deleted-{ana.id}", later) is None  # once only
    assert await stored.erase(store, 999, "deleted-999", later) is None


async def test_erasures_of_a_tournament_in_order(store: Store) -> None:
    t = await store.create_tournament(new_tournament())
    players = [await store.create_player(n, f"h-{n}", NOW) for n in ("ana", "bob", "cy")]
    for p in players:
        await store.create_entry(t.id, p, NOW, NOW + timedelta(minutes=15), playing())
    await store.close_tournament(t.id, NOW)
    for p, minutes in zip(players, (5, 1, 5), strict=True):
        await stored.erase(store, p.id, f"deleted-{p.id}", NOW + timedelta(minutes=minutes))
    at = NOW + timedelta(minutes=5)
    assert await stored.of_tournament(store, t.id) == [
        (players[1].id, NOW + timedelta(minutes=1)),
        (players[0].id, at),
        (players[2].id, at),
    ]


async def test_withdraw_removes_a_new_player_and_its_device(store: Store) -> None:
    ana = await store.create_player("ana", "h-ana", NOW)
    await stored.withdraw(store, ana.id)
    assert await store.player_by_name("ana") is None
    assert await store.player_by_token_hash("h-ana") is None
    again = await store.create_player("ana", "h-ana-2", NOW)  # the name is free again
    assert await store.player_by_token_hash("h-ana-2") == again
