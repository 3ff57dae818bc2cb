"""Fair play in the database (server/store/fairplay.py), on SQLite and PostgreSQL: one
disqualification per entry, an amendment when made after the close, read back in order,
counted, and the entrants the organiser's reports read."""

from __future__ import annotations

from datetime import timedelta

from server.store import fairplay as stored
from server.store import ratings
from server.store.repository import Store
from tests.support.store_records import NOW, new_tournament, playing

LATER = NOW + timedelta(minutes=30)


async def test_a_disqualification_is_made_once_and_is_an_amendment_after_the_close(
    store: Store,
) -> None:
    t = await store.create_tournament(new_tournament())
    other = await store.create_tournament(new_tournament(name="Other"))
    ana = await store.create_player("ana", "h-ana", NOW)
    bob = await store.create_player("bob", "h-bob", NOW)
    deadline = NOW + timedelta(minutes=15)
    a = await store.create_entry(t.id, ana, NOW, deadline, playing())
    b = await store.create_entry(t.id, bob, NOW, deadline, playing())
    await store.create_entry(other.id, ana, NOW, deadline, playing())

    made = await stored.disqualify(store, b.id, "solver", LATER)
    assert made == stored.DisqualifiedEntry(b.id, bob.id, "bob", "solver", LATER, False)
    assert await stored.disqualify(store, b.id, "again", LATER) is None
    assert await stored.disqualify(store, 10_000, "nobody", LATER) is None
    await store.close_tournament(t.id, LATER)
    amended = await stored.disqualify(store, a.id, "shared the line", NOW)
    assert amended is not None and amended.after_close

    assert [(d.player, d.after_close) for d in await stored.of_tournament(store, t.id)] == [
        ("ana", True),  # made at NOW: the order is by `at`
        ("bob", False),
    ]
    assert await stored.reasons(store, t.id) == {"ana": "shared the line", "bob": "solver"}
    assert await stored.counts(store) == {t.id: 2}
    assert await stored.of_tournament(store, other.id) == []


async def test_the_entrants_with_their_players_kind_and_age(store: Store) -> None:
    t = await store.create_tournament(new_tournament())
    ana = await store.create_player("ana", "h-ana", NOW - timedelta(days=3))
    bot = await ratings.create_bot(store, "robo", "h-robo", NOW)
    joined = NOW + timedelta(minutes=2)
    a = await store.create_entry(t.id, ana, joined, joined + timedelta(minutes=15), playing())
    r = await store.create_entry(t.id, bot, joined, joined + timedelta(minutes=15), playing())
    assert await stored.entrants(store, t.id) == [
        stored.Entrant(a.id, ana.id, "ana", False, NOW - timedelta(days=3), joined),
        stored.Entrant(r.id, bot.id, "robo", True, NOW, joined),
    ]
