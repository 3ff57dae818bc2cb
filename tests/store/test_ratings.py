"""Ratings in the database (server/store/ratings.py), on SQLite and PostgreSQL: bots made,
closed tournaments in the order ratings take them, the step's pending list (and whether
a late close needs the rebuild), a tournament's field as columns, a tournament taken in
once (placings, new and moved ratings), the rebuild's replacement, the game lock."""

from __future__ import annotations

from datetime import timedelta

import pytest

from server.domain.model import NameTaken, PlayerInfo
from server.domain.ratings import Field, PlacingRow, RatingOutcome, RatingRow
from server.store import fairplay
from server.store import ratings as stored
from server.store.repository import Store
from tests.support.store_records import NOW, new_tournament, summary

LATER = NOW + timedelta(hours=2)


async def closed_with(store: Store, players: list[PlayerInfo], minutes: int, **over: object) -> int:
    """A tournament closed `minutes` after NOW, each player's entry at progress 10, 9..."""
    t = await store.create_tournament(new_tournament(**over))
    for i, p in enumerate(players):
        await store.create_entry(t.id, p, NOW, NOW, summary(progress=10 - i))
    await store.close_tournament(t.id, NOW + timedelta(minutes=minutes))
    return t.id


def outcome(mu: list[float | None], ranks: list[int | None]) -> RatingOutcome:
    sigma = [None if m is None else 2.0 for m in mu]
    counts = [None if m is None else 1 for m in mu]
    return RatingOutcome(ranks, sum(r is not None for r in ranks), mu, sigma, counts)


async def test_a_bot_is_a_player_with_a_token_and_its_name_is_unique(store: Store) -> None:
    bot = await stored.create_bot(store, "Robo", "h-robo", NOW)
    assert bot.bot and not bot.admin and bot.name == "Robo"
    assert await store.player_by_token_hash("h-robo") == bot
    with pytest.raises(NameTaken):
        await stored.create_bot(store, "ROBO", "h-other", NOW)


async def test_closed_tournaments_in_order_and_the_pending_ones(store: Store) -> None:
    (ana,) = [await store.create_player("ana", "h-ana", NOW)]
    second = await closed_with(store, [ana], 20)
    first = await closed_with(store, [ana], 10)
    klondike = await closed_with(store, [ana], 15, game="klondike", options={})
    await store.create_tournament(new_tournament(name="still open"))
    assert [c.id for c in await stored.closed(store)] == [first, klondike, second]
    assert [c.id for c in await stored.closed(store, "gaps")] == [first, second]
    assert await stored.set_rated(store, second, False)
    assert not await stored.set_rated(store, 10_000, True)
    todo, late = await stored.pending(store, "gaps")
    assert [(c.id, c.rated) for c in todo] == [(first, True), (second, False)] and not late
    field = (await stored.field(store, [second]))[second]
    assert await stored.record(store, second, "gaps", field, outcome([None], [1]), set(), LATER)
    todo, late = await stored.pending(store, "gaps")
    assert [c.id for c in todo] == [first] and late  # one closed after it was taken in
    assert await stored.pending(store, "chess") == ([], False)


async def test_a_field_holds_the_entries_as_columns(store: Store) -> None:
    ana = await store.create_player("ana", "h-ana", NOW)
    bot = await stored.create_bot(store, "robo", "h-robo", NOW)
    cy = await store.create_player("cy", "h-cy", NOW)
    tid = await closed_with(store, [ana, bot, cy], 10)
    empty = await closed_with(store, [], 11)
    entry = await store.entry(tid, cy.id)
    assert entry is not None
    await fairplay.disqualify(store, entry.id, "solver", LATER)
    got = await stored.field(store, [tid, empty, tid])
    assert got[tid] == Field(
        [ana.id, bot.id, cy.id],
        [False, True, False],
        [10, 9, 8],
        [0, 0, 0],
        [0, 0, 0],
        [False, False, True],
    )
    assert got[empty] == Field([], [], [], [], [], [])


async def test_a_tournament_is_taken_in_once_and_ratings_move(store: Store) -> None:
    ana = await store.create_player("ana", "h-ana", NOW)
    bob = await store.create_player("bob", "h-bob", NOW)
    first = await closed_with(store, [ana, bob], 10)
    taken = (await stored.field(store, [first]))[first]
    moved = outcome([30.0, 20.0], [1, 2])
    assert await stored.record(store, first, "gaps", taken, moved, set(), LATER)
    again = outcome([99.0, 99.0], [1, 2])
    assert not await stored.record(store, first, "gaps", taken, again, set(), LATER)
    assert await stored.current(store, "gaps", [ana.id, bob.id, 10_000]) == {
        ana.id: (30.0, 2.0, 1),
        bob.id: (20.0, 2.0, 1),
    }
    second = await closed_with(store, [ana], 20)
    field = (await stored.field(store, [second]))[second]
    assert await stored.record(store, second, "gaps", field, outcome([33.0], [1]), {ana.id}, LATER)
    ratings, placings = await stored.snapshot(store)
    assert ratings == [
        RatingRow(ana.id, "gaps", 33.0, 2.0, 1),
        RatingRow(bob.id, "gaps", 20.0, 2.0, 1),
    ]
    assert placings == [
        PlacingRow(first, ana.id, "gaps", 1, 2, 2, 30.0, 2.0),
        PlacingRow(first, bob.id, "gaps", 2, 2, 2, 20.0, 2.0),
        PlacingRow(second, ana.id, "gaps", 1, 1, 1, 33.0, 2.0),
    ]


async def test_the_rebuild_replaces_every_placing_and_rating(store: Store) -> None:
    ana = await store.create_player("ana", "h-ana", NOW)
    tid = await closed_with(store, [ana], 10)
    field = (await stored.field(store, [tid]))[tid]
    await stored.record(store, tid, "gaps", field, outcome([30.0], [1]), set(), LATER)
    other = await closed_with(store, [ana], 20)
    placings = [PlacingRow(tid, ana.id, "gaps", 1, 1, 1, 26.0, 3.0)]
    final = {(ana.id, "gaps"): (26.0, 3.0, 1)}
    await stored.replace_all(store, [tid, other], placings, final, LATER)
    assert await stored.snapshot(store) == ([RatingRow(ana.id, "gaps", 26.0, 3.0, 1)], placings)
    assert await stored.pending(store, "gaps") == ([], False)  # both marked taken in


async def test_the_game_lock_has_one_taker_at_a_time(store: Store) -> None:
    async with stored.game_lock(store, 7, wait=True) as held:
        assert held
        async with stored.game_lock(store, 7, wait=False) as second:
            assert not second
    async with stored.game_lock(store, 7, wait=False) as free_again:
        assert free_again
