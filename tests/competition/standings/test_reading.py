"""The standings part (reading.py): windows answered without waiting once the table is
in memory (None before: the fan-out then asks `windows`), pages, the whole table."""

from __future__ import annotations

from server.competition.service import Competition
from server.domain.model import PlayerInfo
from tests.competition.conftest import gaps_spec


async def test_windows_now_answers_only_from_memory(
    competition: Competition, alice: PlayerInfo
) -> None:
    t = await competition.catalogue.create(gaps_spec())
    await competition.play.join(alice, t.id)
    bob, _ = await competition.players.register("bob")
    await competition.play.join(bob, t.id)
    key = (1, 0, "bob")
    assert competition.standings.windows_now(t.id, [key]) is None  # not read yet
    [view] = (await competition.standings.windows(t.id, [key])).values()
    now = competition.standings.windows_now(t.id, [key])
    assert now is not None and now[key].rows == view.rows and len(view.rows) == 2
    page = await competition.standings.page(t.id, 1, 5)
    rows, final = await competition.standings.table(t.id)
    assert page.rows == rows[1:] and page.total == 2 and not final
