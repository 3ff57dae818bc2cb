"""One tournament's table (table.py): read from the store when first asked (until then
changes wait for that read), news only when newer than what it knows, and versions that
grow across a reread."""

from __future__ import annotations

from server.competition.service import Competition
from server.domain.model import PlayerInfo
from tests.competition.conftest import gaps_spec


async def test_a_table_is_read_when_first_asked_and_versions_grow_across_rereads(
    competition: Competition, alice: PlayerInfo
) -> None:
    t = await competition.catalogue.create(gaps_spec())
    runtime = competition.catalogue.tournaments.get(t.id)
    assert runtime is not None
    await competition.play.join(alice, t.id)
    assert not runtime.table.watched  # nobody asked: the join did not build it
    first = await competition.standings.window(t.id)
    assert [r.player for r in first.rows] == ["alice"] and runtime.table.watched
    runtime.table.reread()
    assert not runtime.table.watched
    again = await competition.standings.window(t.id)
    assert again.rows == first.rows and again.version > first.version


async def test_figures_it_already_knows_are_not_news(
    competition: Competition, alice: PlayerInfo
) -> None:
    t = await competition.catalogue.create(gaps_spec())
    await competition.play.join(alice, t.id)
    await competition.standings.window(t.id)
    runtime = competition.catalogue.tournaments.get(t.id)
    entry = await competition.store.entry(t.id, alice.id)
    assert runtime is not None and entry is not None
    assert runtime.table.knows(entry.id)
    assert not runtime.table.figures_changed(entry.id, entry.seq, entry.figures)
    assert runtime.table.figures_changed(entry.id, entry.seq + 1, entry.figures)
