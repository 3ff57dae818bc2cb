"""What Klondike's engine (klondike_state and its neighbours) and its deal search share.

The layout and the deal, the options, the places of the table as typed values,
the fit rules and the safe-move rule of docs/RULES-KLONDIKE.md ("Table",
"Options"). This module imports no other Klondike module, so the engine and the
search (klondike_search.py) never need each other.

Piles are tuples with their top card last. A column is (down, up): the face-down
cards and the face-up run on them. Foundations hold a count per suit (C, D, H, S);
a suit's top card is rank count-1. The stock's top is its last card.
"""

from __future__ import annotations

from enum import Enum
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from server import rng
from server.games import cards

COLUMNS = 7
KING = cards.KING
Column = tuple[tuple[int, ...], tuple[int, ...]]


class KlondikeOptions(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    draw: Literal[1, 3] = 1
    passes: Annotated[int, Field(strict=True, ge=1, le=99)] | None = None
    guaranteed: bool = False
    hints: bool = False


# -- places ------------------------------------------------------------------
# A place's protocol text ("waste", "t0".."t6", "fC".."fS") is read once, where an
# action is parsed (parse_place); the engine then works on these members only.
# Members are singletons: compare them with `is`.


class Waste(Enum):
    """The waste pile: only its top card moves."""

    WASTE = "waste"

    text: str

    def __init__(self, text: str) -> None:
        self.text = text

    def __str__(self) -> str:
        return self.text


class Tableau(Enum):
    """A tableau column, t0..t6 (`column` 0..6)."""

    T0 = "t0"
    T1 = "t1"
    T2 = "t2"
    T3 = "t3"
    T4 = "t4"
    T5 = "t5"
    T6 = "t6"

    text: str
    column: int

    def __init__(self, text: str) -> None:
        self.text = text
        self.column = int(text[1])

    def __str__(self) -> str:
        return self.text


class Foundation(Enum):
    """A foundation, fC fD fH fS (`suit` 0..3 in cards.SUITS order)."""

    C = "fC"
    D = "fD"
    H = "fH"
    S = "fS"

    text: str
    suit: int

    def __init__(self, text: str) -> None:
        self.text = text
        self.suit = cards.SUITS.index(text[1])

    def __str__(self) -> str:
        return self.text


Place = Waste | Tableau | Foundation
"""Where cards are taken from or put: one of the 12 members above."""

WASTE = Waste.WASTE
TABLEAU: tuple[Tableau, ...] = tuple(Tableau)
"""Columns by index: TABLEAU[3] is t3."""
FOUNDATIONS: tuple[Foundation, ...] = tuple(Foundation)
"""Foundations by suit (card // 13): FOUNDATIONS[2] is fH."""
PLACES: dict[str, Place] = {p.text: p for kind in (Waste, Tableau, Foundation) for p in kind}
"""Every place by its protocol text, in the protocol's order: waste, t0..t6, fC..fS."""
PLACE_NAMES = "waste, t0..t6, fC, fD, fH or fS"


class BadPlace(ValueError):
    """Not the text of a Klondike place."""


def parse_place(text: object) -> Place:
    """The place a protocol text names; raises BadPlace for anything else."""
    place = PLACES.get(text) if isinstance(text, str) else None
    if place is None:
        raise BadPlace(f"unknown place {text!r}: use {PLACE_NAMES}")
    return place


# -- rules shared by the engine and the search --------------------------------
def fits_column(card: int, target: tuple[int, ...]) -> bool:
    """On a column whose face-up run is `target`: one lower, other colour; K on empty."""
    if not target:
        return card % 13 == KING
    top = target[-1]
    return top % 13 == card % 13 + 1 and cards.is_red(top) != cards.is_red(card)


def fits_foundation(found: tuple[int, ...], card: int) -> bool:
    """The next card of its suit's foundation (found: cards home per suit C, D, H, S)."""
    return found[card // 13] == card % 13


def is_safe(found: tuple[int, ...], card: int) -> bool:
    """Safe to send up (the `auto` rule): it fits its foundation and is an A or 2, or both
    foundations of the other colour are at least one rank below it."""
    if not fits_foundation(found, card):
        return False
    rank = card % 13 + 1
    if rank <= 2:
        return True
    others = (0, 3) if cards.is_red(card) else (1, 2)
    return all(found[s] >= rank - 1 for s in others)


def deal(seed: bytes, attempt: int) -> tuple[tuple[Column, ...], tuple[int, ...]]:
    """Columns (down, up) and the stock (top last) of deal attempt `attempt`."""
    deck = iter(rng.shuffled(seed, rng.klondike_deal_label(attempt), cards.DECK))
    piles: list[list[int]] = [[] for _ in range(COLUMNS)]
    for row in range(COLUMNS):
        for col in range(row, COLUMNS):
            piles[col].append(next(deck))
    stock_top_first = list(deck)
    cols = tuple((tuple(p[:-1]), (p[-1],)) for p in piles)
    return cols, tuple(reversed(stock_top_first))
