"""The Gaps grid's pure functions (server/games/gaps_layout.py): runs, the cards a gap
accepts, blocking, the deal and redeal layouts, and the layout notation."""

from __future__ import annotations

from typing import Any

import pytest

from server.games import cards
from server.games.gaps_layout import (
    ACES,
    GAP,
    TWOS,
    accepted_cards,
    cell_of,
    deal_grid,
    format_grid,
    is_blocked,
    needed_card,
    parse_grid,
    redeal_grid,
    row_col,
    run_length,
)
from server.games.gaps_options import RESHUFFLE_ALL, VARIANTS

SEED = bytes(32)
SOLVED = [
    "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC --",
    "2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD --",
    "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH --",
    "2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS --",
]
# Gaps at (0,0), (0,5) after 5H, (0,6) after a gap, (1,12) after KD.
OPEN = [
    "-- 3C 4C 2D 5H -- -- 7H 8H 9H TH JH 6H",
    "2C 3D 4D 5D 6D 7D 8D 9D TD JD QD KD --",
    "2H 3H QH KH 4H 5C 6C 7C 8C 9C TC JC QC",
    "2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS KC",
]


def gaps_of(grid: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(i for i, c in enumerate(grid) if c == GAP)


def test_cells_are_row_major() -> None:
    assert cell_of(0, 0) == 0 and cell_of(2, 5) == 31 and cell_of(3, 12) == 51
    assert all(cell_of(*row_col(cell)) == cell for cell in range(52))


def test_a_run_starts_with_a_two_in_column_zero_and_climbs_in_one_suit() -> None:
    grid = parse_grid(OPEN)
    assert [run_length(grid, r) for r in range(4)] == [0, 1, 2, 12]
    assert [run_length(parse_grid(SOLVED), r) for r in range(4)] == [12, 12, 12, 12]


def test_a_gap_needs_the_next_card_up_of_its_left_neighbour() -> None:
    grid = parse_grid(OPEN)
    assert needed_card(grid, cell_of(0, 5)) == cards.parse("6H")
    assert needed_card(grid, cell_of(0, 6)) is None  # after a gap
    assert needed_card(grid, cell_of(1, 12)) is None  # after a King
    assert accepted_cards(grid, cell_of(0, 5)) == (cards.parse("6H"),)
    assert accepted_cards(grid, cell_of(1, 12)) == ()


def test_free_parking_also_accepts_the_card_below_the_right_neighbour() -> None:
    grid = parse_grid(OPEN)
    # (0,5): 6H from the left, nothing from the right (a gap); (0,6): 6H below 7H.
    assert accepted_cards(grid, cell_of(0, 5), right_neighbour=True) == (cards.parse("6H"),)
    assert accepted_cards(grid, cell_of(0, 6), right_neighbour=True) == (cards.parse("6H"),)
    assert accepted_cards(grid, cell_of(0, 6)) == ()
    # In column 12 there is no right neighbour.
    assert accepted_cards(grid, cell_of(1, 12), right_neighbour=True) == ()


def test_a_grid_is_blocked_when_every_gap_is_dead_and_none_in_column_zero() -> None:
    blocked = parse_grid([*SOLVED[:3], "2S 4S 3S 5S 6S 7S 8S 9S TS JS QS KS --"])
    assert is_blocked(blocked, gaps_of(blocked))
    grid = parse_grid(OPEN)
    assert not is_blocked(grid, gaps_of(grid))
    dead_only = (cell_of(0, 6), cell_of(1, 12))
    assert is_blocked(grid, dead_only)
    assert not is_blocked(grid, dead_only, right_neighbour=True)  # (0,6) takes 6H there


def test_deal_lays_52_row_major_and_removes_aces_where_they_lie(
    drbg_vectors: dict[str, Any],
) -> None:
    for case in drbg_vectors["cases"]:
        grid = deal_grid(bytes.fromhex(case["seed"]))
        assert format_grid(grid) == case["gaps_initial_layout"]
        deck = case["shuffled_deck_label_gaps_deal"]
        for cell, code in enumerate(deck):
            assert grid[cell] == (GAP if code[0] == "A" else cards.parse(code))
        assert sorted(c for c in grid if c != GAP) == [c for c in cards.DECK if c % 13]


def test_each_deal_attempt_is_its_own_layout() -> None:
    assert deal_grid(SEED, 0) != deal_grid(SEED, 1)
    assert deal_grid(SEED, 1) == deal_grid(SEED, 1)


def test_montana_deals_the_twos_down_column_zero_in_suit_order() -> None:
    grid = deal_grid(SEED, variant=VARIANTS["montana"])
    assert [grid[cell_of(r, 0)] for r in range(4)] == list(TWOS)
    assert sorted(c for c in grid if c != GAP) == [c for c in cards.DECK if c % 13]


def test_redeal_keeps_runs_and_places_one_gap_after_each() -> None:
    # FAQ: a redeal does not shuffle everything; runs from a 2 in column 0 stay.
    rows = [
        "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC --",  # complete: gap goes to column 12
        "9D 2D 3D 4D 5D 6D 7D 8D TD JD QD KD --",  # not a 2 in column 0: keeps nothing
        "2H 3H 4H 5S -- 5H 6H 7H 8H 9H TH JH KH",  # keeps 2H 3H 4H
        "2S 3S 4S 9S 6S 7S 8S -- TS JS QS KS QH",  # keeps 2S 3S 4S; 6S..8S mid-row is not kept
    ]
    before = parse_grid(rows)
    assert [run_length(before, r) for r in range(4)] == [12, 0, 3, 3]
    grid = redeal_grid(before, SEED, 1, 1)
    out = format_grid(grid)
    assert out[0] == rows[0]
    assert out[1].startswith("--")
    assert out[2].startswith("2H 3H 4H --")
    assert out[3].startswith("2S 3S 4S --")
    assert sorted(c for c in grid if c != GAP) == sorted(c for c in before if c != GAP)
    assert [run_length(grid, r) for r in range(4)] == [12, 0, 3, 3]


def test_redeal_vectors_per_player(drbg_vectors: dict[str, Any]) -> None:
    for case in drbg_vectors["cases"]:
        seed = bytes.fromhex(case["seed"])
        grid = deal_grid(seed)
        assert (
            format_grid(redeal_grid(grid, seed, 1, 1))
            == case["gaps_layout_after_redeal_1_of_initial_player_1"]
        )
        assert (
            format_grid(redeal_grid(grid, seed, 42, 1))
            == case["gaps_layout_after_redeal_1_of_initial_player_42"]
        )


def test_reshuffle_all_keeps_nothing_and_puts_the_gaps_in_column_zero() -> None:
    grid = redeal_grid(parse_grid(SOLVED), SEED, 1, 1, rule=RESHUFFLE_ALL)
    assert gaps_of(grid) == tuple(cell_of(r, 0) for r in range(4))
    assert sorted(c for c in grid if c != GAP) == [c for c in cards.DECK if c % 13]


def test_addiction_shuffles_the_aces_in_and_their_cells_become_the_gaps() -> None:
    before = parse_grid(OPEN)
    grid = redeal_grid(before, SEED, 1, 1, variant=VARIANTS["addiction"])
    assert all(grid[cell_of(3, c)] == before[cell_of(3, c)] for c in range(12))  # its run
    assert len(gaps_of(grid)) == 4 and not set(ACES) & set(grid)
    assert sorted(c for c in grid if c != GAP) == [c for c in cards.DECK if c % 13]


def test_format_and_parse_are_inverses() -> None:
    grid = deal_grid(SEED)
    assert parse_grid(format_grid(grid)) == grid
    assert format_grid(parse_grid(OPEN)) == OPEN


@pytest.mark.parametrize(
    ("rows", "fragment"),
    [
        (SOLVED[:3], "4 rows"),
        ([*SOLVED[:3], "2S 3S"], "52 cells"),
        ([*SOLVED[:3], SOLVED[2]], "exactly once"),
    ],
)
def test_parse_refuses_what_is_not_a_grid(rows: list[str], fragment: str) -> None:
    with pytest.raises(ValueError, match=fragment):
        parse_grid(rows)
