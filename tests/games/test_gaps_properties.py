"""Property tests: random legal play keeps the invariants of RULES-GAPS.md."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from server.games import cards
from server.games.base import Status
from server.games.gaps import COLS, GAP, GAPS, GapsOptions, GapsRedeal, GapsState
from tests.support.factories import random_gaps_game

seeds = st.binary(min_size=32, max_size=32)


@settings(max_examples=60, deadline=None)
@given(seed=seeds, choice=st.integers(0, 2**32))
def test_random_play_keeps_48_cards_and_4_gaps(seed: bytes, choice: int) -> None:
    full = [c for c in cards.DECK if cards.rank(c) != cards.ACE]
    for s, _ in random_gaps_game(seed, random.Random(choice)):
        assert sorted(c for c in s.grid if c != GAP) == full
        assert sum(1 for c in s.grid if c == GAP) == 4 and len(s.gaps) == 4
        assert s.cards_in_place == sum(s.runs) <= 48
        assert 0 <= s.redeals_used <= 2
        fresh = GapsState(
            seed=s.seed, player_id=7, redeals=2, grid=s.grid, redeals_used=s.redeals_used
        )
        assert fresh.runs == s.runs and sorted(fresh.gaps) == sorted(s.gaps)
        if s.status is Status.PLAYING:
            assert bool(s.legal_moves()) != s.blocked


@settings(max_examples=30, deadline=None)
@given(seed=seeds, choice=st.integers(0, 2**32))
def test_same_seed_and_actions_give_the_same_game(seed: bytes, choice: int) -> None:
    states = list(random_gaps_game(seed, random.Random(choice)))
    actions = [a for _, a in states[1:]]
    replayed = GAPS.replay(seed, GapsOptions(), actions, player_id=7)
    assert replayed.grid == states[-1][0].grid
    assert replayed.status == states[-1][0].status
    assert GAPS.new_game(seed, GapsOptions(), player_id=99).grid == states[0][0].grid


@settings(max_examples=60, deadline=None)
@given(seed=seeds, choice=st.integers(0, 2**32))
def test_redeal_preserves_exactly_the_runs(seed: bytes, choice: int) -> None:
    prev = None
    for s, action in random_gaps_game(seed, random.Random(choice), redeals=3):
        if isinstance(action, GapsRedeal) and prev is not None:
            assert s.runs == prev.runs
            for r, run in enumerate(prev.runs):
                start = r * COLS
                assert s.grid[start : start + run] == prev.grid[start : start + run]
                assert s.grid[start + run] == GAP
        prev = s


@settings(max_examples=20, deadline=None)
@given(seed=seeds)
def test_redeals_differ_per_player(seed: bytes) -> None:
    from server.games.gaps import redeal_grid

    grid = GAPS.new_game(seed, GapsOptions(), player_id=1).grid
    assert redeal_grid(grid, seed, 1, 1) != redeal_grid(grid, seed, 2, 1)
    assert redeal_grid(grid, seed, 1, 1) != redeal_grid(grid, seed, 1, 2)
