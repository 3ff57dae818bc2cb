"""The Gaps search (server/games/gaps_search.py) and winnable deals
(GapsRules.prepare_deal): every line found replays through the engine to exactly what it
claims, results depend only on the budget (par: test_gaps_par.py)."""

from __future__ import annotations

import random

import pytest

from server.games import gaps, gaps_search
from server.games.base import Status
from server.games.gaps import GAPS, deal_grid, parse_grid, redeal_grid
from server.games.gaps_search import (
    Redealer,
    SearchLimits,
    prove_win,
    search,
    search_tiers,
    to_bytes,
)
from server.games.random_play import random_gaps_game


def seed_of(i: int) -> bytes:
    return i.to_bytes(4, "big") * 8


QUICK_WIN = seed_of(4)  # attempt 0 is proven won within 100 positions
WIN_AT_1 = seed_of(13)  # attempt 0 is not proven within 3,000 positions, attempt 1 is
SMALL = SearchLimits(total=12_000, first=3_000, later=1_500, breadth=4)


def test_prove_win_finds_a_line_the_engine_replays_to_a_win_with_no_redeal() -> None:
    line = prove_win(deal_grid(QUICK_WIN), 1_000)
    assert line is not None and all(a["kind"] == "move" for a in line)
    end = GAPS.replay(QUICK_WIN, GAPS.parse_options({"redeals": 0}), line, player_id=0)
    assert end.status is Status.WON and end.resets == 0


def test_prove_win_says_none_when_its_budget_is_too_small() -> None:
    assert prove_win(deal_grid(QUICK_WIN), 10) is None
    assert prove_win(deal_grid(WIN_AT_1), 3_000) is None


@pytest.mark.parametrize("rule", ["keep_runs", "reshuffle_all"])
@pytest.mark.parametrize("i", [0, 1, 7])
def test_search_lines_replay_to_what_they_claim(rule: str, i: int) -> None:
    seed = seed_of(i)
    options = GAPS.parse_options({"redeal": rule})
    found = search(deal_grid(seed), seed, 9, 2, rule, SMALL)
    end = GAPS.replay(seed, options, gaps_search.actions(found.line), player_id=9)
    assert (end.progress, end.resets) == (found.progress, found.resets)
    assert 0 <= found.resets <= 2


def test_search_depends_on_the_budget_alone_and_a_bigger_one_is_no_worse() -> None:
    seed = seed_of(3)
    a = search(deal_grid(seed), seed, 1, 2, "keep_runs", SMALL)
    b = search(deal_grid(seed), seed, 1, 2, "keep_runs", SMALL)
    assert a == b
    big = search(deal_grid(seed), seed, 1, 2, "keep_runs", SearchLimits())
    assert (big.progress, -big.resets) >= (a.progress, -a.resets)


def test_search_prefers_fewer_redeals_among_wins() -> None:
    found = search(deal_grid(QUICK_WIN), QUICK_WIN, 1, 2, "keep_runs", SMALL)
    assert (found.progress, found.resets) == (48, 0)


def test_the_redealer_makes_what_the_engine_makes_under_both_rules() -> None:
    rnd = random.Random(5)
    for i in range(6):
        seed = seed_of(i)
        for rule in ("keep_runs", "reshuffle_all"):
            options = GAPS.parse_options({"redeal": rule, "redeals": 0})
            *_, (state, _) = random_gaps_game(seed, rnd, options, player_id=3)
            assert state.blocked
            dealer = Redealer(seed, 3, rule)
            for k in (1, 2):
                made = dealer.layout(to_bytes(state.grid), k)
                assert made == to_bytes(redeal_grid(state.grid, seed, 3, k, rule))  # type: ignore[arg-type]


# -- winnable deals ------------------------------------------------------------------
def test_prepare_deal_is_attempt_zero_unproven_unless_winnable() -> None:
    assert GAPS.prepare_deal(QUICK_WIN, GAPS.parse_options({})) == (0, False, None)


def test_prepare_deal_winnable_proves_the_first_attempt_it_can(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(gaps, "WIN_NODES", 3_000)
    options = GAPS.parse_options({"winnable": True})
    attempt, guaranteed, solution = GAPS.prepare_deal(QUICK_WIN, options)
    assert (attempt, guaranteed) == (0, True) and solution
    attempt, guaranteed, solution = GAPS.prepare_deal(WIN_AT_1, options)
    assert (attempt, guaranteed) == (1, True) and solution is not None
    end = GAPS.replay(WIN_AT_1, options, solution, player_id=0, deal_attempt=1)
    assert end.status is Status.WON and end.resets == 0
    # every entrant gets that attempt's deal
    dealt = GAPS.new_game(WIN_AT_1, options, player_id=8, deal_attempt=attempt)
    assert dealt.grid == deal_grid(WIN_AT_1, 1)


def test_prepare_deal_gives_up_after_its_attempts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gaps, "WIN_NODES", 50)
    monkeypatch.setattr(gaps, "WIN_ATTEMPTS", 3)
    assert GAPS.prepare_deal(WIN_AT_1, GAPS.parse_options({"winnable": True})) == (2, False, None)


def test_a_solved_grid_needs_no_move() -> None:
    solved = [" ".join(f"{r}{s}" for r in "23456789TJQK") + " --" for s in "CDHS"]
    assert prove_win(parse_grid(solved), 1) == []


def test_search_tiers_use_the_next_budget_only_without_a_win() -> None:
    seed = seed_of(3)
    grid = deal_grid(seed)
    tiny = SearchLimits(total=40, first=40, later=10, breadth=1)
    first = search(grid, seed, 1, 2, "keep_runs", tiny)
    assert first.progress < 48
    second = search(grid, seed, 1, 2, "keep_runs", SMALL)
    both = search_tiers(grid, seed, 1, 2, "keep_runs", (tiny, SMALL))
    assert both == max(first, second, key=lambda f: (f.progress, -f.resets))
    won = search_tiers(deal_grid(QUICK_WIN), QUICK_WIN, 1, 2, "keep_runs", (SMALL, tiny))
    assert won == search(deal_grid(QUICK_WIN), QUICK_WIN, 1, 2, "keep_runs", SMALL)
