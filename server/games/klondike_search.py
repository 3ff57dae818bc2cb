"""Guaranteed Klondike deals: a deterministic best-first search for a full solution.

The search never uses foundation-to-column moves, so every solution it finds is
valid. Its budget is counted in positions: distinct states it expands. It uses
macro moves (draw straight to a reachable stock card and play it), auto-plays
cards that are safe by the rules' own definition, prunes positions that only
differ by column order, and orders moves by a progress heuristic.

It works on klondike_core alone and never imports the engine (klondike_state) or
the game (klondike.py): klondike.py imports this module, and its prepare_deal
replays every solution found through the engine before a tournament may call its
deal guaranteed.
"""

from __future__ import annotations

import heapq
import itertools
from dataclasses import dataclass
from typing import Any

from server.games.base import PreparedDeal
from server.games.klondike_core import (
    COLUMNS,
    FOUNDATIONS,
    KING,
    TABLEAU,
    WASTE,
    Column,
    KlondikeOptions,
    Place,
    deal,
    fits_column,
    fits_foundation,
    is_safe,
)

POSITION_BUDGET = 5_000
MAX_ATTEMPTS = 60


@dataclass(frozen=True, slots=True)
class Pos:
    """A search position: all cards known (the server's view, never a client's)."""

    cols: tuple[Column, ...]
    stock: tuple[int, ...]
    waste: tuple[int, ...]
    found: tuple[int, int, int, int]
    recycles: int

    def key(self, limited: bool) -> tuple[Any, ...]:
        return (
            tuple(sorted(self.cols)),
            self.stock,
            self.waste,
            self.found,
            self.recycles if limited else 0,
        )


Step = tuple[Pos, list[dict[str, Any]]]


def _up(found: tuple[int, ...], card: int) -> tuple[int, int, int, int]:
    f = list(found)
    f[card // 13] += 1
    return (f[0], f[1], f[2], f[3])


def _take(cols: tuple[Column, ...], i: int, n: int) -> tuple[Column, ...]:
    """Columns after the last n face-up cards of column i leave (with the auto flip)."""
    down, up = cols[i]
    up = up[:-n]
    if not up and down:
        up, down = (down[-1],), down[:-1]
    out = list(cols)
    out[i] = (down, up)
    return tuple(out)


def _put(cols: tuple[Column, ...], i: int, group: tuple[int, ...]) -> tuple[Column, ...]:
    out = list(cols)
    out[i] = (cols[i][0], cols[i][1] + group)
    return tuple(out)


def _move(src: Place, dst: Place, count: int = 1) -> dict[str, Any]:
    """A move in its JSON form, as records store it."""
    return {"kind": "move", "from": src.text, "to": dst.text, "count": count}


def _auto_safe(pos: Pos, actions: list[dict[str, Any]]) -> Pos:
    """Send up every safe card (column tops, then the waste top) until none is left."""
    moved = True
    while moved:
        moved = False
        for i in range(COLUMNS):
            up = pos.cols[i][1]
            if up and is_safe(pos.found, up[-1]):
                card = up[-1]
                actions.append(_move(TABLEAU[i], FOUNDATIONS[card // 13]))
                pos = Pos(
                    _take(pos.cols, i, 1), pos.stock, pos.waste, _up(pos.found, card), pos.recycles
                )
                moved = True
        if pos.waste and is_safe(pos.found, pos.waste[-1]):
            card = pos.waste[-1]
            actions.append(_move(WASTE, FOUNDATIONS[card // 13]))
            pos = Pos(pos.cols, pos.stock, pos.waste[:-1], _up(pos.found, card), pos.recycles)
            moved = True
    return pos


class Search:
    """One deal attempt under fixed draw/passes rules."""

    def __init__(self, options: KlondikeOptions, budget: int = POSITION_BUDGET) -> None:
        self.draw = options.draw
        self.max_recycles = None if options.passes is None else options.passes - 1
        self.budget = budget
        self.expanded = 0

    # -- the stock as macro moves ---------------------------------------
    def _stock_states(self, pos: Pos) -> list[tuple[Pos, int]]:
        """Every (stock, waste) the draw command reaches in one full cycle, with its draw count."""
        out: list[tuple[Pos, int]] = []
        stock, waste, recycles = pos.stock, pos.waste, pos.recycles
        start = (stock, waste)
        limit = 2 * (len(stock) + len(waste)) + 2
        for k in range(1, limit + 1):
            if stock:
                n = min(self.draw, len(stock))
                waste = waste + stock[-n:][::-1]
                stock = stock[:-n]
            elif waste and (self.max_recycles is None or recycles < self.max_recycles):
                stock, waste, recycles = waste[::-1], (), recycles + 1
            else:
                break
            if (stock, waste) == start:
                break
            if waste:
                out.append((Pos(pos.cols, stock, waste, pos.found, recycles), k))
        return out

    # -- successors -------------------------------------------------------
    def successors(self, pos: Pos) -> list[Step]:
        steps: list[Step] = []
        cols, found = pos.cols, pos.found
        king_waiting = self._king_waiting(pos)
        stock_states = self._stock_states(pos)
        for i in range(COLUMNS):
            down, up = cols[i]
            if not up:
                continue
            top = up[-1]
            if fits_foundation(found, top):
                steps.append(self._to_found_from_col(pos, i))
            for n in range(len(up), 0, -1):
                group = up[-n:]
                whole = n == len(up)
                if whole:
                    if not down and (group[0] % 13 == KING or not king_waiting):
                        continue  # moving it frees nothing useful
                elif not fits_foundation(found, up[-n - 1]):
                    continue  # part moves only to free a card for its foundation
                for t in range(COLUMNS):
                    if t != i and fits_column(group[0], cols[t][1]):
                        new_cols = _put(_take(cols, i, n), t, group)
                        steps.append(
                            (
                                Pos(new_cols, pos.stock, pos.waste, found, pos.recycles),
                                [_move(TABLEAU[i], TABLEAU[t], n)],
                            )
                        )
                        break  # equivalent targets: one is enough
        for p, k in [(pos, 0), *stock_states]:
            if not p.waste:
                continue
            card = p.waste[-1]
            draws = [{"kind": "draw"}] * k
            if fits_foundation(found, card):
                np = Pos(p.cols, p.stock, p.waste[:-1], _up(found, card), p.recycles)
                steps.append((np, [*draws, _move(WASTE, FOUNDATIONS[card // 13])]))
            for t in range(COLUMNS):
                if fits_column(card, cols[t][1]):
                    np = Pos(_put(cols, t, (card,)), p.stock, p.waste[:-1], found, p.recycles)
                    steps.append((np, [*draws, _move(WASTE, TABLEAU[t])]))
                    break
        return steps

    def _to_found_from_col(self, pos: Pos, i: int) -> Step:
        card = pos.cols[i][1][-1]
        np = Pos(_take(pos.cols, i, 1), pos.stock, pos.waste, _up(pos.found, card), pos.recycles)
        return np, [_move(TABLEAU[i], FOUNDATIONS[card // 13])]

    @staticmethod
    def _king_waiting(pos: Pos) -> bool:
        if any(c % 13 == KING for c in pos.stock) or any(c % 13 == KING for c in pos.waste):
            return True
        return any(down and up and up[0] % 13 == KING for down, up in pos.cols)

    def score(self, pos: Pos) -> int:
        """Higher is closer to a win: cards home, face-down cards turned, empty columns, few
        cards left in the stock and waste (buried waste cards weigh more when passes are
        limited: they may never come back)."""
        down = sum(len(d) for d, _ in pos.cols)
        empty = sum(1 for d, u in pos.cols if not d and not u)
        stock_w, waste_w = (2, 1) if self.max_recycles is None else (4, 8)
        return (
            12 * sum(pos.found)
            - 20 * down
            + 4 * empty
            - stock_w * len(pos.stock)
            - waste_w * len(pos.waste)
        )

    # -- the search -------------------------------------------------------
    def solve(self, start: Pos) -> list[dict[str, Any]] | None:
        """A winning action list from `start`, or None within the budget."""
        limited = self.max_recycles is not None
        first: list[dict[str, Any]] = []
        root = _auto_safe(start, first)
        parents: list[tuple[int, list[dict[str, Any]]]] = [(-1, first)]
        seen = {root.key(limited)}
        tie = itertools.count()
        heap = [(-self.score(root), 0, next(tie), root, 0)]
        while heap and self.expanded < self.budget:
            _, depth, _, pos, node = heapq.heappop(heap)
            self.expanded += 1
            if sum(pos.found) == 52:
                return self._path(parents, node)
            for nxt, acts in self.successors(pos):
                acts = list(acts)
                nxt = _auto_safe(nxt, acts)
                key = nxt.key(limited)
                if key in seen:
                    continue
                seen.add(key)
                parents.append((node, acts))
                if sum(nxt.found) == 52:
                    return self._path(parents, len(parents) - 1)
                heapq.heappush(
                    heap, (-self.score(nxt), depth - 1, next(tie), nxt, len(parents) - 1)
                )
        return None

    @staticmethod
    def _path(parents: list[tuple[int, list[dict[str, Any]]]], node: int) -> list[dict[str, Any]]:
        chunks = []
        while node != -1:
            parent, acts = parents[node]
            chunks.append(acts)
            node = parent
        return [a for chunk in reversed(chunks) for a in chunk]


def solve_attempt(
    seed: bytes, options: KlondikeOptions, attempt: int, budget: int = POSITION_BUDGET
) -> tuple[list[dict[str, Any]] | None, int]:
    """(solution or None, positions expanded) for one deal attempt. The solution is the
    search's own line (in JSON form); KlondikeRules.prepare_deal replays it through the
    engine before any tournament relies on it."""
    cols, stock = deal(seed, attempt)
    search = Search(options, budget)
    solution = search.solve(Pos(cols, stock, (), (0, 0, 0, 0), 0))
    return solution, search.expanded


def guaranteed_deal(
    seed: bytes, options: KlondikeOptions, attempts: int = MAX_ATTEMPTS
) -> PreparedDeal:
    """The first attempt the search proves: (attempt, True, solution); after `attempts`
    failures, (last attempt, False, None) and the tournament says it is not guaranteed."""
    for attempt in range(attempts):
        solution, _ = solve_attempt(seed, options, attempt)
        if solution is not None:
            return PreparedDeal(attempt, True, solution)
    return PreparedDeal(attempts - 1, False, None)
