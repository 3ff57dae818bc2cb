"""Card codes and the canonical deck (docs/GENERATOR.md).

A card is an int 0..51 in canonical order: suits C, D, H, S; within a suit
A..K. So AC=0, 2C=1, ..., KS=51; rank = card % 13 (0 = ace, 12 = king).
"""

from __future__ import annotations

RANKS = "A23456789TJQK"
SUITS = "CDHS"
SUIT_SYMBOLS = {"♣": "C", "♦": "D", "♥": "H", "♠": "S"}
DECK: tuple[int, ...] = tuple(range(52))
ACE, TWO, KING = 0, 1, 12
CODES: tuple[str, ...] = tuple(r + s for s in SUITS for r in RANKS)
_BY_CODE: dict[str, int] = {code: i for i, code in enumerate(CODES)}


class BadCard(ValueError):
    """A string that is not a card code."""


def rank(card: int) -> int:
    return card % 13


def suit(card: int) -> int:
    return card // 13


def is_red(card: int) -> bool:
    return suit(card) in (1, 2)


def code(card: int) -> str:
    """The two-character output code, e.g. 'TH'."""
    return CODES[card]


def parse(text: str) -> int:
    """A card from its code; also accepts '10' for T, lower case and ♣♦♥♠."""
    card = _BY_CODE.get(text)
    if card is not None:
        return card
    t = text.strip().upper()
    if t and t[-1] in SUIT_SYMBOLS:
        t = t[:-1] + SUIT_SYMBOLS[t[-1]]
    if t.startswith("10"):
        t = "T" + t[2:]
    card = _BY_CODE.get(t)
    if card is None:
        raise BadCard(f"unknown card {text!r}: use rank A23456789TJQK (or 10) and suit CDHS")
    return card
