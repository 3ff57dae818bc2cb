"""server/store/club_events.py on PostgreSQL: a club's limit is counted in the creating
transaction under the club's row lock, so two nodes creating the 5th and 6th event of a
club at once cannot both pass; the clubs a player belongs to and leads."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from server.competition.errors import CompetitionError
from server.competition.service import Competition
from server.domain.club_events import EventFields
from server.store import clubs as stored
from server.store.repository import Store
from tests.competition.conftest import gaps_spec
from tests.support.harness import T0, Clock


async def test_two_nodes_cannot_both_pass_a_clubs_limit(pg_url: str) -> None:
    first, second = await Store.open(pg_url), await Store.open(pg_url)
    try:
        clock = Clock()
        a, b = Competition.build(first, None, clock), Competition.build(second, None, clock)
        ana = (await a.players.register("Ana"))[0]
        bo = (await a.players.register("Bo"))[0]
        club = await a.clubs.create(ana, "Clube", None)
        assert club.invite is not None
        await a.clubs.join(bo, club.invite)
        await a.clubs.set_leader(ana, club.id, "Bo", True)
        assert await stored.roles(second, bo.id) == (frozenset({club.id}), frozenset({club.id}))
        assert await stored.missing(second, (club.id, 99)) == [99]
        event = EventFields(club.id, created_by=ana.id)
        spec = gaps_spec(event=event, limits=(club.id,), ends_at=T0 + timedelta(hours=1))
        for _ in range(4):
            await a.catalogue.create(spec)
        made = await asyncio.gather(
            a.catalogue.create(spec), b.catalogue.create(spec), return_exceptions=True
        )
        refused = [r for r in made if isinstance(r, CompetitionError)]
        assert len(refused) == 1 and refused[0].extra == {"limit": "club_events"}
        assert len(await a.catalogue.summaries()) == 5
    finally:
        await first.close()
        await second.close()
