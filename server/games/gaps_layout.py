"""The Gaps grid and its layouts (RULES-GAPS.md): the pure functions the engine
(gaps.py), the verifier and the tests share.

The grid is 52 cells, row-major (cell = row * 13 + col), each holding a card (0..51, see
cards.py) or GAP. Which cards a gap accepts, the deal and the redeals take the variant's
flags (gaps_options.Variant).
"""

from __future__ import annotations

from server import rng
from server.games import cards
from server.games.gaps_options import GAPS_VARIANT, KEEP_RUNS, RedealRule, Variant

ROWS, COLS = 4, 13
GAP = -1
TWOS: tuple[int, ...] = tuple(c for c in cards.DECK if cards.rank(c) == cards.TWO)
ACES: tuple[int, ...] = tuple(c for c in cards.DECK if cards.rank(c) == cards.ACE)


def cell_of(row: int, col: int) -> int:
    return row * COLS + col


def row_col(cell: int) -> list[int]:
    return [cell // COLS, cell % COLS]


def run_length(grid: tuple[int, ...] | list[int], row: int) -> int:
    """The preserved run of a row: cards from a 2 in column 0 going up in one suit."""
    start = row * COLS
    card = grid[start]
    if card == GAP or card % 13 != cards.TWO:
        return 0
    n = 1
    while n < COLS - 1 and grid[start + n] == card + n:
        n += 1
    return n


def needed_card(grid: tuple[int, ...] | list[int], gap: int) -> int | None:
    """The card its left neighbour asks a gap outside column 0 for (one rank higher, same
    suit), or None when that neighbour is a King or a gap."""
    left = grid[gap - 1]
    if left == GAP or left % 13 == cards.KING:
        return None
    return left + 1


def card_below(grid: tuple[int, ...] | list[int], gap: int) -> int | None:
    """free_parking: the card its right neighbour asks a gap for (one rank lower, same
    suit), or None in column 12 or when that neighbour is a 2 or a gap."""
    if gap % COLS == COLS - 1:
        return None
    right = grid[gap + 1]
    if right == GAP or right % 13 == cards.TWO:
        return None
    return right - 1


def accepted_cards(
    grid: tuple[int, ...] | list[int], gap: int, right_neighbour: bool = False
) -> tuple[int, ...]:
    """The cards a gap outside column 0 accepts (none: it is dead)."""
    up = needed_card(grid, gap)
    down = card_below(grid, gap) if right_neighbour else None
    if down is None or down == up:
        return () if up is None else (up,)
    return (down,) if up is None else (up, down)


def is_blocked(grid: tuple[int, ...], gaps: tuple[int, ...], right_neighbour: bool = False) -> bool:
    """No legal move: every gap is outside column 0 and dead."""
    if right_neighbour:
        return all(g % COLS != 0 and not accepted_cards(grid, g, True) for g in gaps)
    return all(g % COLS != 0 and needed_card(grid, g) is None for g in gaps)


def deal_grid(seed: bytes, attempt: int = 0, variant: Variant = GAPS_VARIANT) -> tuple[int, ...]:
    """The initial layout of a deal attempt (0: `gaps/deal`, a >= 1: `gaps/deal/a`): the
    shuffled deck row-major (montana: the 2s in column 0, C D H S from the top, the rest
    in columns 1..12), aces replaced by gaps."""
    deck = rng.shuffled(seed, rng.gaps_deal_label(attempt), cards.DECK)
    if variant.fixed_twos:
        rest = iter(c for c in deck if cards.rank(c) != cards.TWO)
        deck = [TWOS[i // COLS] if i % COLS == 0 else next(rest) for i in range(ROWS * COLS)]
    return tuple(GAP if cards.rank(c) == cards.ACE else c for c in deck)


def redeal_grid(
    grid: tuple[int, ...],
    seed: bytes,
    player_id: int,
    k: int,
    rule: RedealRule = KEEP_RUNS,
    variant: Variant = GAPS_VARIANT,
) -> tuple[int, ...]:
    """Redeal k of a player: keep each row's run (none under reshuffle_all), shuffle the
    rest, one gap right after each kept run (column 0 where nothing is kept). addiction:
    the aces are shuffled in, every cell not kept is filled, the aces become the gaps."""
    runs = [run_length(grid, r) if rule == KEEP_RUNS else 0 for r in range(ROWS)]
    kept = {cell_of(r, c) for r in range(ROWS) for c in range(runs[r])}
    gathered = [c for i, c in enumerate(grid) if c != GAP and i not in kept]
    if variant.aces_make_gaps:
        gathered += ACES
    label = rng.gaps_redeal_label(player_id, k)
    deck = iter(rng.shuffled(seed, label, sorted(gathered)))
    if variant.aces_make_gaps:
        filled = (grid[i] if i in kept else next(deck) for i in range(ROWS * COLS))
        return tuple(GAP if cards.rank(c) == cards.ACE else c for c in filled)
    new_gaps = {cell_of(r, runs[r]) for r in range(ROWS)}
    return tuple(
        grid[i] if i in kept else GAP if i in new_gaps else next(deck) for i in range(ROWS * COLS)
    )


def format_grid(grid: tuple[int, ...]) -> list[str]:
    """Rows as 'JD 2D -- 6D ...' (the vectors' layout notation)."""
    return [
        " ".join("--" if c == GAP else cards.code(c) for c in grid[r * COLS : (r + 1) * COLS])
        for r in range(ROWS)
    ]


def parse_grid(rows: list[str]) -> tuple[int, ...]:
    """The inverse of format_grid: 4 rows of 13 codes or '--'."""
    if len(rows) != ROWS:
        raise ValueError(f"a grid has {ROWS} rows")
    cells = [tok for row in rows for tok in row.split()]
    if len(cells) != ROWS * COLS:
        raise ValueError(f"a grid has {ROWS * COLS} cells, got {len(cells)}")
    grid = tuple(GAP if tok == "--" else cards.parse(tok) for tok in cells)
    if sorted(c for c in grid if c != GAP) != [c for c in cards.DECK if cards.rank(c)]:
        raise ValueError("a grid holds each card but the aces exactly once, and 4 gaps")
    return grid
