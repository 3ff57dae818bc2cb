"""Par in the database (server/store/par.py), on SQLite and PostgreSQL: closed
tournaments waiting for their par step, pars stored at most once per entry, read with or
without their lines, and the step marked done by exactly one caller."""

from __future__ import annotations

from datetime import timedelta

from server.store import par as stored
from server.store.par import ParFigures, StoredPar
from server.store.repository import Store
from tests.support.store_records import NOW, new_tournament, playing

LINE = [{"kind": "move", "card": "2C", "to": [0, 0]}]


async def test_closed_tournaments_wait_for_their_par_step_in_close_order(store: Store) -> None:
    first = await store.create_tournament(new_tournament(name="First"))
    second = await store.create_tournament(new_tournament(name="Second"))
    still_open = await store.create_tournament(new_tournament(name="Open"))
    await store.close_tournament(second.id, NOW)
    await store.close_tournament(first.id, NOW + timedelta(minutes=1))
    assert await stored.pending(store) == [second.id, first.id]
    assert await stored.finish(store, second.id, NOW)
    assert not await stored.finish(store, second.id, NOW)  # marked already
    assert await stored.pending(store) == [first.id]
    assert still_open.id not in await stored.pending(store)


async def test_a_par_is_stored_once_per_entry_and_read_back(store: Store) -> None:
    t = await store.create_tournament(new_tournament())
    entries = []
    for name in ("ana", "bob", "cy"):
        p = await store.create_player(name, f"h-{name}", NOW)
        entries.append(await store.create_entry(t.id, p, NOW, NOW, playing()))
    a, b, c = (e.id for e in entries)
    await stored.save(store, t.id, [], NOW, notify=False)  # nothing to do
    await stored.save(
        store, t.id, [StoredPar(a, 40, 1, LINE), StoredPar(b, 48, 0, None)], NOW, True
    )
    await stored.save(store, t.id, [StoredPar(a, 1, 2, []), StoredPar(c, 7, 0, [])], NOW, False)
    assert await stored.done_entries(store, t.id) == {a, b, c}
    assert await stored.figures(store, t.id) == {
        a: ParFigures(40, 1),  # the first writer's row is kept
        b: ParFigures(48, 0),
        c: ParFigures(7, 0),
    }
    assert await stored.of_entries(store, [a, b, 10_000]) == {
        a: StoredPar(a, 40, 1, LINE),
        b: StoredPar(b, 48, 0, None),
    }
    await stored.announce(store, t.id)  # (a notice on PostgreSQL; nothing on SQLite)
