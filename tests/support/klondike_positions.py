"""Klondike positions written by hand for the rules' tests: columns as 'down | up'
texts, and the refusals they expect."""

from __future__ import annotations

import pytest

from server.games import cards
from server.games.base import IllegalAction
from server.games.klondike import KlondikeState, Move


def cs(text: str) -> tuple[int, ...]:
    return tuple(cards.parse(t) for t in text.split())


def pos(cols=(), stock="", waste="", found=None, draw=1, passes=None, score=0, recycles=0):
    """Columns as 'down | up' strings (bottom first); stock and waste top last."""
    parsed = []
    for text in list(cols) + [""] * (7 - len(cols)):
        down, _, up = text.partition("|")
        parsed.append((cs(down), cs(up)))
    f = found or {}
    return KlondikeState(
        cols=tuple(parsed),
        stock=cs(stock),
        waste=cs(waste),
        found=tuple(f.get(s, 0) for s in "CDHS"),
        draw=draw,
        passes=passes,
        score=score,
        recycles_used=recycles,
    )


def mv(src: str, dst: str, count: int = 1) -> Move:
    return Move(source=src, to=dst, count=count)


def refused(state, action, reason: str) -> IllegalAction:
    with pytest.raises(IllegalAction) as info:
        state.apply(action)
    assert info.value.reason == reason, info.value.message
    return info.value


def up(state, col: int) -> list[str]:
    return [cards.code(c) for c in state.cols[col][1]]
