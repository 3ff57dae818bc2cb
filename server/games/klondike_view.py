"""What a Klondike player is shown of a position: the view, the "no moves" warning, the hint.

RULES-KLONDIKE.md "Hidden information" (the view: counts only for face-down cards
and the stock), '"No moves" warning' and "Hint" (the first suggestion in the rules'
order of seven; none means the warning). Nothing here changes a position: these are
functions of a `KlondikeTable`, which KlondikeState is, and KlondikeState binds them as its
own methods (`state.view()`, `state.hint()`), so a call costs no extra frame. This
module never imports the state (klondike_state imports it).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, Protocol

from server.games import cards
from server.games.base import PLAYING, Status
from server.games.klondike_actions import Draw, KlondikeAction, Move
from server.games.klondike_core import (
    COLUMNS,
    FOUNDATIONS,
    KING,
    TABLEAU,
    WASTE,
    Column,
    Tableau,
    Waste,
    fits_column,
    fits_foundation,
    is_safe,
)

__all__ = ["KlondikeTable", "future_waste_tops", "hint", "view"]


class KlondikeTable(Protocol):
    """What the view and the hint read of a position (klondike_state's KlondikeState)."""

    @property
    def cols(self) -> tuple[Column, ...]: ...
    @property
    def stock(self) -> tuple[int, ...]: ...
    @property
    def waste(self) -> tuple[int, ...]: ...
    @property
    def found(self) -> tuple[int, ...]: ...
    @property
    def draw(self) -> int: ...
    @property
    def recycles_left(self) -> int | None: ...
    @property
    def status(self) -> Status: ...


# -- the view ----------------------------------------------------------------
def view(t: KlondikeTable) -> dict[str, Any]:
    """Only what the player may see: counts for face-down cards and the stock."""
    return {
        "tableau": [{"down": len(down), "up": [cards.code(c) for c in up]} for down, up in t.cols],
        "stock": len(t.stock),
        "waste": [cards.code(c) for c in t.waste[-3:]],
        "waste_count": len(t.waste),
        "foundations": {
            s: (cards.code(i * 13 + t.found[i] - 1) if t.found[i] else None)
            for i, s in enumerate(cards.SUITS)
        },
        "recycles_left": t.recycles_left,
        # the "no moves" warning: no hint is left (a warning only, never an end)
        "no_moves": hint(t) is None if t.status is PLAYING else False,
    }


# -- the hint ----------------------------------------------------------------
def hint(t: KlondikeTable) -> KlondikeAction | None:
    """The first suggestion in the rules' order of seven; None means 'no moves'."""
    for step in _STEPS:
        action = step(t)
        if action is not None:
            return action
    return None


def _sources(t: KlondikeTable) -> Iterator[tuple[Tableau | Waste, int]]:
    """(place, card) of each column's last card, columns 0..6, then the waste top."""
    for place in TABLEAU:
        up = t.cols[place.column][1]
        if up:
            yield place, up[-1]
    if t.waste:
        yield WASTE, t.waste[-1]


def _up(source: Tableau | Waste, card: int) -> Move:
    return Move(source=source, to=FOUNDATIONS[card // 13])


def _col_move(source: int, target: int, count: int) -> Move:
    return Move(source=TABLEAU[source], to=TABLEAU[target], count=count)


def _target_for(t: KlondikeTable, card: int, exclude: int) -> int | None:
    return next(
        (c for c in range(COLUMNS) if c != exclude and fits_column(card, t.cols[c][1])),
        None,
    )


def _safe_up(t: KlondikeTable) -> Move | None:
    """1. a safe move up to a foundation."""
    return next((_up(p, c) for p, c in _sources(t) if is_safe(t.found, c)), None)


def _uncover(t: KlondikeTable) -> Move | None:
    """2. a whole face-up run that uncovers a face-down card (most face-down cards first)."""
    order = sorted(range(COLUMNS), key=lambda i: (-len(t.cols[i][0]), i))
    for i in order:
        down, up = t.cols[i]
        if down and up:
            target = _target_for(t, up[0], i)
            if target is not None:
                return _col_move(i, target, len(up))
    return None


def _any_up(t: KlondikeTable) -> Move | None:
    """3. any other move up to a foundation."""
    return next((_up(p, c) for p, c in _sources(t) if fits_foundation(t.found, c)), None)


def _waste_down(t: KlondikeTable) -> Move | None:
    """4. the waste's card to a column."""
    if not t.waste:
        return None
    target = _target_for(t, t.waste[-1], -1)
    return None if target is None else Move(source=WASTE, to=TABLEAU[target])


def _king_waiting(t: KlondikeTable) -> bool:
    return (
        any(c % 13 == KING for c in t.stock)
        or any(c % 13 == KING for c in t.waste)
        or any(down and up and up[0] % 13 == KING for down, up in t.cols)
    )


def _empty_for_king(t: KlondikeTable) -> Move | None:
    """5. emptying a column onto another when a King is waiting."""
    if not _king_waiting(t):
        return None
    cols = t.cols
    for i, (down, up) in enumerate(cols):
        if up and not down:
            target = next(
                (
                    c
                    for c in range(COLUMNS)
                    if c != i and cols[c][1] and fits_column(up[0], cols[c][1])
                ),
                None,
            )
            if target is not None:
                return _col_move(i, target, len(up))
    return None


def _part_frees(t: KlondikeTable) -> Move | None:
    """6. part of a run to another column, freeing a card that then goes up."""
    for i, (_, up) in enumerate(t.cols):
        for n in range(1, len(up)):
            if not fits_foundation(t.found, up[-n - 1]):
                continue
            target = _target_for(t, up[-n], i)
            if target is not None:
                return _col_move(i, target, n)
    return None


def _draw(t: KlondikeTable) -> Draw | None:
    """7. drawing, if a card it would bring to the waste's top fits somewhere now."""

    def helps(card: int) -> bool:
        return fits_foundation(t.found, card) or _target_for(t, card, -1) is not None

    return Draw() if any(helps(c) for c in future_waste_tops(t)) else None


_STEPS: tuple[Callable[[KlondikeTable], KlondikeAction | None], ...] = (
    _safe_up,
    _uncover,
    _any_up,
    _waste_down,
    _empty_for_king,
    _part_frees,
    _draw,
)
"""The hint's steps in the rules' order: the first that finds something wins."""


def future_waste_tops(t: KlondikeTable) -> list[int]:
    """Cards that would reach the waste's top by drawing: the stock to its end, then
    one more whole pass when a recycle is still allowed."""
    tops: list[int] = []
    stock, waste = list(t.stock), list(t.waste)
    recycles_left = t.recycles_left
    passes = 2 if recycles_left is None or recycles_left > 0 else 1
    for p in range(passes):
        if p == 1:
            stock, waste = waste[::-1], []
        while stock:
            n = min(t.draw, len(stock))
            for _ in range(n):
                waste.append(stock.pop())
            tops.append(waste[-1])
    return tops
