"""Card codes (cards.py, docs/GENERATOR.md): the canonical order, codes written and read
back, the forms `parse` also accepts, and what it refuses."""

from __future__ import annotations

import pytest

from server.games import cards


def test_the_canonical_order_and_its_codes() -> None:
    assert (cards.code(0), cards.code(1), cards.code(12), cards.code(51)) == (
        "AC",
        "2C",
        "KC",
        "KS",
    )
    assert all(cards.parse(cards.code(c)) == c for c in cards.DECK)
    assert (cards.rank(51), cards.suit(51)) == (cards.KING, 3)
    assert [cards.is_red(c) for c in (0, 13, 26, 39)] == [False, True, True, False]


@pytest.mark.parametrize(("text", "card"), [("10h", 35), (" th ", 35), ("A♠", 39), ("qd", 24)])
def test_parse_also_reads_ten_lower_case_and_suit_symbols(text: str, card: int) -> None:
    assert cards.parse(text) == card


@pytest.mark.parametrize("text", ["", "1H", "AX", "HH", "10", "AC2"])
def test_anything_else_is_a_bad_card(text: str) -> None:
    with pytest.raises(cards.BadCard):
        cards.parse(text)
