"""Gaps search: the best result reachable on a deal and one player's redeal stream (par),
and proofs of wins with no redeal (winnable deals). Pure: no clock, no I/O.

A position is 52 bytes, row-major: a card 0..51 (cards.py) or HOLE. Within one deal or
redeal (a phase) the search is a depth-first walk with a transposition table. Its budget
is counted in positions, so a result depends on the budget alone, never on time. It never
moves a card of a preserved run of two or more, plays a move that extends a run as soon as
there is one (that card has no other place to go), and records, for every blocked position
it meets, the runs a redeal would keep there. A redeal's layout depends only on those runs
(the gathered cards are all the others, sorted, under one permutation per count), so a
phase reduces to a few distinct kept-run sets; the next level starts from the best of
them. Levels are searched in order (every candidate after one redeal before any after two),
so the first win found uses the fewest redeals.

Variants (gaps_options.Variant): montana needs nothing here (its 2s never move, its deal
is the engine's); free_parking's walk also takes the card below a gap's right neighbour
(`right`); addiction's redeal shuffles the aces in and fills every cell not kept (its
layout still depends on the kept runs alone).

Moves in a line are (card, cell) Steps; REDEAL is the redeal. `actions` turns a line into
PROTOCOL.md action objects.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from server import rng
from server.games import cards
from server.games.gaps_options import GAPS_VARIANT, Variant

HOLE = 52  # a gap, in the search's bytes (the engine's GAP is -1)
ROWS, COLS = 4, 13
FULL = 4 * (COLS - 1)  # cards in place when won
TWOS = (1, 14, 27, 40)
ACES = [0, 13, 26, 39]
Step = tuple[int, int]
REDEAL: Step = (-1, -1)
KEEP_RUNS, RESHUFFLE_ALL = "keep_runs", "reshuffle_all"


class SearchLimits(NamedTuple):
    """A par search's budget: positions in all (`total`), per phase (the deal's and each
    later one's), and how many kept-run sets of each level go on to a redeal."""

    total: int = 60_000
    first: int = 6_000
    later: int = 3_000
    breadth: int = 8


PAR_LIMITS = SearchLimits()
PAR_TIERS = (PAR_LIMITS, SearchLimits(total=240_000, first=24_000, later=6_000, breadth=24))
"""Par's budgets: the second is searched only when the first found no win."""


class Found(NamedTuple):
    """The best result found: cards in place, redeals used, and the line reaching it."""

    progress: int
    resets: int
    line: list[Step]


def to_bytes(grid: Sequence[int]) -> bytes:
    """An engine grid (GAP = -1) as the search's bytes."""
    return bytes(HOLE if c < 0 else c for c in grid)


def row_run(g: bytes | bytearray, row: int) -> int:
    """A row's preserved run length (gaps.run_length, on bytes)."""
    start = row * COLS
    card = g[start]
    if card == HOLE or card % 13 != 1:
        return 0
    n = 1
    while n < COLS - 1 and g[start + n] == card + n:
        n += 1
    return n


def runs_of(g: bytes | bytearray) -> list[int]:
    """Each row's preserved run length."""
    return [row_run(g, 0), row_run(g, 1), row_run(g, 2), row_run(g, 3)]


@dataclass
class Phase:
    """What one phase's walk found: its best progress and line, for each kept-run set a
    blocked position (best progress first met), and whether it won."""

    best: int = -1
    best_line: list[Step] = field(default_factory=list)
    blocked: dict[bytes, tuple[int, list[Step], bytes]] = field(default_factory=dict)
    won: bool = False


class Budget:
    """Positions left to expand, shared by every phase of one search."""

    __slots__ = ("left",)

    def __init__(self, nodes: int) -> None:
        self.left = nodes


def _moves(g: bytearray, pos: bytearray, runs: list[int], right: bool = False) -> list[Step]:
    """The moves to try, the best last (the walk pops them): a run-extending move alone
    when there is one; never a 2 heading a run of two or more. `right` (free_parking):
    a gap also takes the card below its right neighbour."""
    ends = (runs[0], 13 + runs[1], 26 + runs[2], 39 + runs[3])
    plain: list[Step] = []
    good: list[Step] = []  # frees the cell after a run: a run move follows
    late: list[Step] = []  # a 2 moved from column 0 to column 0: only moves that gap
    q = g.find(HOLE)
    while q >= 0:
        if q % COLS == 0:
            for two in TWOS:
                s = pos[two]
                if g[q + 1] == two + 1 and (s % COLS or runs[s // COLS] < 2):
                    return [(two, q)]
                if s % COLS == 0:
                    if runs[s // COLS] < 2:
                        late.append((two, q))
                elif s in ends:
                    good.append((two, q))
                else:
                    plain.append((two, q))
        else:
            left = g[q - 1]
            up = -1
            if left != HOLE and left % 13 != 12:
                up = left + 1
                if q in ends:
                    return [(up, q)]
                (good if pos[up] in ends else plain).append((up, q))
            if right and q % COLS != COLS - 1:
                below = g[q + 1]
                if below != HOLE and below % 13 != 1 and below - 1 != up:
                    (good if pos[below - 1] in ends else plain).append((below - 1, q))
        q = g.find(HOLE, q + 1)
    return late + plain + good


def _conflict(pos: bytearray, a: Step, b: Step) -> bool:
    """Whether two moves of one position interfere: the same gap or the same 2, one takes
    away the left neighbour the other's gap needs, or one moves a card whose successor the
    other puts right of it."""
    (ca, qa), (cb, qb) = a, b
    sa, sb = pos[ca], pos[cb]
    return (
        qa == qb
        or ca == cb
        or (cb == ca + 1 and qb == sa + 1)
        or (ca == cb + 1 and qa == sb + 1)
        or (qa % COLS != 0 and sb == qa - 1)
        or (qb % COLS != 0 and sa == qb - 1)
    )


def _reduced(moves: list[Step], pos: bytearray) -> list[Step]:
    """A smallest subset of the moves closed under `_conflict`, tried first from the best
    (a partial-order reduction, heuristic: moves that do not interfere now are taken as
    independent, so only one order of them is walked). Order kept."""
    best: set[int] | None = None
    for seed in range(len(moves) - 1, -1, -1):
        group, grew = {seed}, True
        while grew:
            grew = False
            for j, m in enumerate(moves):
                if j not in group and any(_conflict(pos, m, moves[k]) for k in group):
                    group.add(j)
                    grew = True
        if best is None or len(group) < len(best):
            best = group
            if len(best) == 1:
                break
    assert best is not None
    return [moves[j] for j in sorted(best)]


def _visit(
    g: bytearray,
    pos: bytearray,
    runs: list[int],
    line: list[Step],
    phase: Phase,
    keep: bool,
    reduce: bool = False,
    right: bool = False,
) -> list[Step]:
    """Score one position into `phase`; its moves (none when won or blocked)."""
    progress = runs[0] + runs[1] + runs[2] + runs[3]
    if progress > phase.best:
        phase.best, phase.best_line = progress, list(line)
        if progress == FULL:
            phase.won = True
            return []
    moves = _moves(g, pos, runs, right)
    if reduce and len(moves) > 1:
        moves = _reduced(moves, pos)
    if not moves:
        key = bytes(g[r * COLS] if runs[r] else HOLE for r in range(ROWS)) + bytes(runs)
        if not keep:
            key = b""
        if key not in phase.blocked:
            phase.blocked[key] = (progress, list(line), bytes(g))
    return moves


def explore(
    start: bytes,
    budget: Budget,
    cap: int,
    keep: bool = True,
    reduce: bool = False,
    right: bool = False,
) -> Phase:
    """Walk one phase from `start` for at most `cap` positions (and what `budget` has
    left). `keep`: blocked positions are told apart by their kept runs (keep_runs), else
    one is enough (reshuffle_all keeps nothing). `reduce`: walk only `_reduced` moves
    (finds wins with fewer positions; the kept-run sets it meets are fewer too; plain
    Gaps only). `right`: free_parking's moves."""
    g = bytearray(start)
    pos = bytearray(HOLE + 1)
    for cell, card in enumerate(g):
        pos[card] = cell
    phase = Phase()
    line: list[Step] = []
    sources: list[int] = []  # where each card of `line` came from (to undo it)
    seen = {start}
    root = runs_of(g)
    stack = [(_visit(g, pos, root, line, phase, keep, reduce, right), root)]
    spent = 1
    budget.left -= 1
    while stack and not phase.won:
        moves, runs = stack[-1]
        if not moves:
            stack.pop()
            if line:  # undo the move that led here
                card, cell = line.pop()
                src = sources.pop()
                g[cell], g[src] = HOLE, card
                pos[card] = src
            continue
        card, cell = moves.pop()
        src = pos[card]
        g[cell], g[src] = card, HOLE
        key = bytes(g)
        if key in seen:
            g[src], g[cell] = card, HOLE
            continue
        if spent >= cap or budget.left <= 0:
            g[src], g[cell] = card, HOLE
            break
        seen.add(key)
        spent += 1
        budget.left -= 1
        pos[card] = cell
        line.append((card, cell))
        sources.append(src)
        row, col = divmod(cell, COLS)
        src_row, src_col = divmod(src, COLS)
        if col == runs[row] or src_col < runs[src_row]:  # a run grew, or a lone 2 left
            runs = list(runs)
            runs[row], runs[src_row] = row_run(g, row), row_run(g, src_row)
        stack.append((_visit(g, pos, runs, line, phase, keep, reduce, right), runs))
    return phase


class Redealer:
    """One player's redeals (RULES-GAPS.md, RNG.md `gaps/redeal/P/k`), on bytes. The
    shuffle of n gathered cards is one permutation of n for each k, drawn once."""

    def __init__(
        self, seed: bytes, player_id: int, rule: str = KEEP_RUNS, aces_make_gaps: bool = False
    ) -> None:
        self.seed, self.player_id, self.keep = seed, player_id, rule == KEEP_RUNS
        self.aces = aces_make_gaps
        self._perms: dict[tuple[int, int], list[int]] = {}

    def layout(self, g: bytes, k: int) -> bytes:
        """The layout redeal k makes from the blocked position `g`."""
        runs = runs_of(g) if self.keep else [0, 0, 0, 0]
        kept = {r * COLS + c for r in range(ROWS) for c in range(runs[r])}
        gathered = [card for cell, card in enumerate(g) if card != HOLE and cell not in kept]
        if self.aces:
            gathered += ACES
        gathered.sort()
        deck = iter([gathered[j] for j in self._perm(k, len(gathered))])
        if self.aces:
            return bytes(
                g[cell] if cell in kept else HOLE if (card := next(deck)) % 13 == 0 else card
                for cell in range(ROWS * COLS)
            )
        out = bytearray()
        for r in range(ROWS):
            for c in range(COLS):
                cell = r * COLS + c
                out.append(g[cell] if c < runs[r] else HOLE if c == runs[r] else next(deck))
        return bytes(out)

    def _perm(self, k: int, n: int) -> list[int]:
        perm = self._perms.get((k, n))
        if perm is None:
            label = rng.gaps_redeal_label(self.player_id, k)
            perm = self._perms[(k, n)] = rng.shuffled(self.seed, label, range(n))
        return perm


def search(
    grid: Sequence[int],
    seed: bytes,
    player_id: int,
    redeals: int,
    rule: str = KEEP_RUNS,
    limits: SearchLimits = PAR_LIMITS,
    variant: Variant = GAPS_VARIANT,
) -> Found:
    """The best (most cards in place, then fewest redeals) the search finds from the dealt
    `grid` (engine form, laid out by `variant`) within `limits`, with its line, under the
    variant's rules. Deterministic given the limits."""
    budget = Budget(limits.total)
    keep, right = rule == KEEP_RUNS, variant.right_neighbour
    dealer = Redealer(seed, player_id, rule, variant.aces_make_gaps)
    level: list[tuple[list[Step], bytes]] = [([], to_bytes(grid))]
    best = Found(-1, 0, [])
    for k in range(redeals + 1):
        blocked: list[tuple[int, list[Step], bytes]] = []
        for prefix, layout in level:
            if budget.left <= 0:
                break
            cap = limits.first if k == 0 else limits.later
            phase = explore(layout, budget, cap, keep, right=right)
            if phase.best > best.progress:
                best = Found(phase.best, k, prefix + phase.best_line)
            if phase.won:
                return best
            blocked.extend((p, prefix + line, g) for p, line, g in phase.blocked.values())
        if k < redeals:
            level = _next_level(blocked, dealer, k + 1, limits.breadth)
    return best


def search_tiers(
    grid: Sequence[int],
    seed: bytes,
    player_id: int,
    redeals: int,
    rule: str = KEEP_RUNS,
    tiers: Sequence[SearchLimits] = PAR_TIERS,
    variant: Variant = GAPS_VARIANT,
) -> Found:
    """`search` under each budget of `tiers` in turn until one finds a win; the best of
    them (ties: the earlier)."""
    best = Found(-1, 0, [])
    for limits in tiers:
        found = search(grid, seed, player_id, redeals, rule, limits, variant)
        if (found.progress, -found.resets) > (best.progress, -best.resets):
            best = found
        if best.progress == FULL:
            break
    return best


def _next_level(
    blocked: list[tuple[int, list[Step], bytes]], dealer: Redealer, k: int, breadth: int
) -> list[tuple[list[Step], bytes]]:
    """The `breadth` distinct layouts of redeal k from the blocked positions keeping the
    most cards (ties: in the order they were met)."""
    level: list[tuple[list[Step], bytes]] = []
    layouts: set[bytes] = set()
    for _, line, g in sorted(blocked, key=lambda b: -b[0]):
        layout = dealer.layout(g, k)
        if layout not in layouts:
            layouts.add(layout)
            level.append(([*line, REDEAL], layout))
            if len(level) == breadth:
                break
    return level


def prove_win(grid: Sequence[int], nodes: int) -> list[dict[str, Any]] | None:
    """A line winning the dealt `grid` (engine form) with no redeal, found within `nodes`
    positions, as action objects; None when none was found (not a proof of a loss)."""
    phase = explore(to_bytes(grid), Budget(nodes), nodes, reduce=True)
    return actions(phase.best_line) if phase.won else None


def actions(line: Sequence[Step]) -> list[dict[str, Any]]:
    """A line as PROTOCOL.md action objects."""
    return [
        {"kind": "redeal"}
        if step == REDEAL
        else {"kind": "move", "card": cards.code(step[0]), "to": [step[1] // COLS, step[1] % COLS]}
        for step in line
    ]
