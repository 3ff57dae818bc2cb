"""Reading ratings (server/store/rating_reads.py), on SQLite and PostgreSQL: a player's
profile, the leaderboard (rating then name, never bots), a player's ratings with their
ranks, results newest first with figures and par, the rating's history, bots in a field."""

from __future__ import annotations

from datetime import timedelta

from server.domain.model import PlayerInfo
from server.domain.ratings import PlacingRow
from server.store import par, ratings
from server.store import rating_reads as reads
from server.store.repository import Store
from tests.support.store_records import NOW, new_tournament, summary

CLOSED = [NOW + timedelta(minutes=m) for m in (10, 20)]


async def rated_field(store: Store) -> tuple[list[PlayerInfo], list[int]]:
    """ana, bob, cy (and a bot, robo) in two closed gaps tournaments, placings written."""
    people = [await store.create_player(n, f"h-{n}", NOW) for n in ("ana", "bob", "cy")]
    bot = await ratings.create_bot(store, "robo", "h-robo", NOW)
    tids = []
    for closed_at, name in zip(CLOSED, ("First", "Second"), strict=True):
        t = await store.create_tournament(new_tournament(name=name))
        for i, p in enumerate([*people, bot]):
            await store.create_entry(t.id, p, NOW, NOW, summary(progress=10 - i))
        await store.close_tournament(t.id, closed_at)
        tids.append(t.id)
    ana, bob, cy = (p.id for p in people)
    placings = [
        PlacingRow(tids[0], ana, "gaps", 1, 3, 4, 30.0, 2.0),
        PlacingRow(tids[0], bob, "gaps", 2, 3, 4, 28.0, 2.0),
        PlacingRow(tids[0], cy, "gaps", 3, 3, 4, 20.0, 2.0),
        PlacingRow(tids[0], bot.id, "gaps", None, 3, 4, None, None),
        PlacingRow(tids[1], ana, "gaps", 2, 2, 4, 29.0, 1.5),
        PlacingRow(tids[1], bob, "gaps", 1, 2, 4, 30.5, 1.5),
    ]
    final = {
        (ana, "gaps"): (29.0, 1.5, 2),  # 24.5
        (bob, "gaps"): (30.5, 2.0, 2),  # 24.5: a tie, by name
        (cy, "gaps"): (20.0, 2.0, 1),  # 14
        (bot.id, "gaps"): (50.0, 1.0, 1),  # a bot's, never on the leaderboard
    }
    await ratings.replace_all(store, tids, placings, final, NOW)
    return [*people, bot], tids


async def test_a_profile_by_name_in_any_case(store: Store) -> None:
    ana = await store.create_player("Ana", "h-ana", NOW)
    assert await reads.profile(store, "ANA") == reads.Profile(ana.id, "Ana", False, NOW)
    assert await reads.profile(store, "nobody") is None


async def test_the_leaderboard_is_by_rating_then_name_without_bots(store: Store) -> None:
    await rated_field(store)
    total, rows = await reads.leaderboard(store, "gaps", 0, 10)
    assert total == 3
    assert [(r.name, r.rating, r.tournaments) for r in rows] == [
        ("ana", 24.5, 2),
        ("bob", 24.5, 2),
        ("cy", 14.0, 1),
    ]
    assert await reads.leaderboard(store, "gaps", 1, 1) == (3, [rows[1]])
    assert await reads.leaderboard(store, "klondike", 0, 10) == (0, [])


async def test_a_players_ratings_carry_their_leaderboard_rank(store: Store) -> None:
    (_ana, bob, cy, bot), _ = await rated_field(store)
    assert await reads.ratings_of(store, bob.id) == {
        "gaps": (reads.Ranked("bob", 30.5, 2.0, 24.5, 2), 2)  # after ana on the tie
    }
    assert (await reads.ratings_of(store, cy.id))["gaps"][1] == 3
    assert (await reads.ratings_of(store, bot.id))["gaps"][1] == 1  # (bots are not ahead)
    assert await reads.ratings_of(store, 10_000) == {}


async def test_results_newest_first_with_figures_and_par(store: Store) -> None:
    (ana, *_), tids = await rated_field(store)
    entry = await store.entry(tids[0], ana.id)
    assert entry is not None
    await par.save(store, tids[0], [par.StoredPar(entry.id, 48, 1, [])], NOW, notify=False)
    results = await reads.results_of(store, ana.id, None)
    assert [(r.tournament_id, r.name, r.rank, r.ranked, r.entrants) for r in results] == [
        (tids[1], "Second", 2, 2, 4),
        (tids[0], "First", 1, 3, 4),
    ]
    assert results[0].closed_at == CLOSED[1] and results[1].figures.progress == 10
    assert (results[0].par_progress, results[1].par_progress, results[1].par_resets) == (
        None,
        48,
        1,
    )
    assert [r.tournament_id for r in await reads.results_of(store, ana.id, 1)] == [tids[1]]


async def test_the_history_holds_rated_placings_only_oldest_first(store: Store) -> None:
    (ana, _bob, _cy, bot), tids = await rated_field(store)
    assert await reads.history(store, ana.id) == {
        "gaps": [
            reads.Point(tids[0], CLOSED[0], 30.0, 2.0),
            reads.Point(tids[1], CLOSED[1], 29.0, 1.5),
        ]
    }
    assert await reads.history(store, bot.id) == {}
    assert await reads.bots_in(store, tids[0]) == {bot.id}
    assert await reads.bots_in(store, 10_000) == set()
