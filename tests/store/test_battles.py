"""server/store/battles.py: a battle's named clubs' names, read by id."""

from __future__ import annotations

from server.competition.service import Competition
from server.store import battles
from server.store.repository import Store
from tests.support.harness import Clock


async def test_club_names_by_id_and_none_for_no_ids(sqlite_url: str) -> None:
    store = await Store.open(sqlite_url)
    try:
        competition = Competition.build(store, None, Clock())
        ana = (await competition.players.register("Ana"))[0]
        one = await competition.clubs.create(ana, "Clube_Um", None)
        two = await competition.clubs.create(ana, "Club_Dos", None)
        assert await battles.club_names(store, [two.id, one.id, 999]) == {
            one.id: "Clube_Um",
            two.id: "Club_Dos",
        }
        assert await battles.club_names(store, []) == {}
    finally:
        await store.close()
