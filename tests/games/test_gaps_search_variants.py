"""The Gaps search and par under each family variant (RULES-GAPS.md "Family variants"):
the search's moves are the engine's legal moves, its redeals the engine's redeals, and
every par line replays through the engine to exactly what it claims."""

from __future__ import annotations

import random

import pytest

from server.games import gaps_search
from server.games.gaps import GAPS, VARIANTS, GapsState, parse_grid, redeal_grid
from server.games.gaps_search import HOLE, Redealer, SearchLimits, search, to_bytes
from server.games.random_play import random_gaps_game
from tests.conftest import load_vector

SMALL = SearchLimits(total=12_000, first=3_000, later=1_500, breadth=4)
VARIANT_RULES = [
    ("montana", "keep_runs"),
    ("addiction", "keep_runs"),
    ("addiction", "reshuffle_all"),
    ("free_parking", "keep_runs"),
    ("free_parking", "reshuffle_all"),
]


def seed_of(i: int) -> bytes:
    return i.to_bytes(4, "big") * 8


def _walk_moves(state: GapsState) -> set[tuple[int, int]]:
    """What the search's move generator offers in the engine's position."""
    g = bytearray(to_bytes(state.grid))
    pos = bytearray(HOLE + 1)
    for cell, card in enumerate(g):
        pos[card] = cell
    runs = gaps_search.runs_of(g)
    return set(gaps_search._moves(g, pos, runs, state.variant.right_neighbour))


@pytest.mark.parametrize(("variant", "rule"), VARIANT_RULES)
def test_the_walk_sees_a_block_exactly_when_the_engine_does(variant: str, rule: str) -> None:
    rnd = random.Random(3)
    options = GAPS.parse_options({"variant": variant, "redeal": rule})
    blocked = 0
    for i in range(4):
        for state, _ in random_gaps_game(seed_of(i), rnd, options, player_id=2):
            offered = _walk_moves(state)
            assert offered <= set(state.legal_moves())  # never an illegal move
            assert (not offered) is state.blocked
            blocked += state.blocked
    if variant != "free_parking":  # its random games seldom block: the vectors' positions do
        assert blocked


def test_free_parking_moves_of_the_vectors_are_walked() -> None:
    for position in load_vector("gaps-variants-v1.json")["positions"]:
        state = GapsState(
            seed=bytes(32),
            player_id=1,
            redeals=1,
            grid=parse_grid(position["layout"]),
            variant=VARIANTS[position["variant"]],
        )
        assert (not _walk_moves(state)) is position["blocked"]


@pytest.mark.parametrize(("variant", "rule"), VARIANT_RULES)
def test_the_redealer_makes_what_the_engine_makes(variant: str, rule: str) -> None:
    rnd = random.Random(7)
    options = GAPS.parse_options({"variant": variant, "redeal": rule, "redeals": 0})
    for i in range(4):
        seed = seed_of(10 + i)
        *_, (state, _) = random_gaps_game(seed, rnd, options, player_id=3)
        dealer = Redealer(seed, 3, rule, options.rules.aces_make_gaps)
        for k in (1, 2, 3):
            made = dealer.layout(to_bytes(state.grid), k)
            assert made == to_bytes(redeal_grid(state.grid, seed, 3, k, rule, options.rules))


@pytest.mark.parametrize(("variant", "rule"), VARIANT_RULES)
@pytest.mark.parametrize("i", [0, 5])
def test_search_lines_replay_to_what_they_claim(variant: str, rule: str, i: int) -> None:
    seed = seed_of(i)
    options = GAPS.parse_options({"variant": variant, "redeal": rule})
    start = GAPS.new_game(seed, options, player_id=9)
    found = search(start.grid, seed, 9, options.redeals, rule, SMALL, options.rules)
    end = GAPS.replay(seed, options, gaps_search.actions(found.line), player_id=9)
    assert (end.progress, end.resets) == (found.progress, found.resets)
    assert found.progress >= start.progress
