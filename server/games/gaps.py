"""Gaps (Montana), variant "Semicolon": the rules of docs/RULES-GAPS.md.

The grid is 52 cells, row-major (cell = row * 13 + col), each holding a card
(0..51, see cards.py) or GAP. Aces are removed after the deal and never return,
so exactly 48 cards and 4 gaps are always on the grid.

Options (v1.3): `redeal` "keep_runs" (default) or "reshuffle_all" (Spaces: a redeal
keeps nothing), and `winnable` (the deal is searched, attempt after attempt, until
gaps_search proves a win with no redeal; prepare_deal replays that proof here).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError
from pydantic.functional_validators import AfterValidator

from server import rng
from server.games import cards
from server.games.base import (
    LOST,
    PLAYING,
    RESIGNED,
    WON,
    ActionError,
    Event,
    GameRules,
    GameState,
    IllegalAction,
    MalformedAction,
    PreparedDeal,
    Status,
    action_data,
    first_error,
)
from server.games.gaps_search import prove_win

ROWS, COLS = 4, 13
GAP = -1
MAX_REDEALS = 3
TWOS: tuple[int, ...] = tuple(c for c in cards.DECK if cards.rank(c) == cards.TWO)
WIN_BONUS_NO_REDEAL = 10
REDEAL_PENALTY = 5


def _card_code(text: str) -> str:
    return cards.code(cards.parse(text))


CardCode = Annotated[str, AfterValidator(_card_code)]
Row = Annotated[int, Field(strict=True, ge=0, le=ROWS - 1)]
Col = Annotated[int, Field(strict=True, ge=0, le=COLS - 1)]


class _Action(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Move(_Action):
    """Move `card` into the gap at cell `to` = [row, col]."""

    kind: Literal["move"] = "move"
    card: CardCode
    to: tuple[Row, Col]


class Redeal(_Action):
    kind: Literal["redeal"] = "redeal"


class Resign(_Action):
    kind: Literal["resign"] = "resign"


GapsAction = Annotated[Move | Redeal | Resign, Field(discriminator="kind")]
_ACTION = TypeAdapter(GapsAction)


RedealRule = Literal["keep_runs", "reshuffle_all"]
KEEP_RUNS: RedealRule = "keep_runs"
RESHUFFLE_ALL: RedealRule = "reshuffle_all"
WIN_ATTEMPTS = 1_000  # winnable: deal attempts searched before giving up (never seen)
WIN_NODES = 5_000  # winnable: positions per attempt (least CPU per proven deal)


class GapsOptions(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    redeals: int = Field(default=2, ge=0, le=MAX_REDEALS, strict=True)
    redeal: RedealRule = KEEP_RUNS
    winnable: bool = Field(default=False, strict=True)


_CARD_OF = {code: i for i, code in enumerate(cards.CODES)}
_ROW_STARTS = range(0, ROWS * COLS, COLS)
_CELL_CODE: tuple[str | None, ...] = (*cards.CODES, None)  # index = cell value (GAP = -1: last)


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
    """The one card that fits a gap outside column 0, or None when the gap is dead."""
    left = grid[gap - 1]
    if left == GAP or left % 13 == cards.KING:
        return None
    return left + 1


def is_blocked(grid: tuple[int, ...], gaps: tuple[int, ...]) -> bool:
    """No legal move: every gap is outside column 0 and dead."""
    return all(g % COLS != 0 and needed_card(grid, g) is None for g in gaps)


def deal_grid(seed: bytes, attempt: int = 0) -> tuple[int, ...]:
    """The initial layout of a deal attempt (0: `gaps/deal`, a >= 1: `gaps/deal/a`): the
    shuffled deck row-major, aces replaced by gaps."""
    deck = rng.shuffled(seed, rng.gaps_deal_label(attempt), cards.DECK)
    return tuple(GAP if cards.rank(c) == cards.ACE else c for c in deck)


def redeal_grid(
    grid: tuple[int, ...], seed: bytes, player_id: int, k: int, rule: RedealRule = KEEP_RUNS
) -> tuple[int, ...]:
    """Redeal k of a player: keep each row's run (none under reshuffle_all), shuffle the
    rest, one gap right after each kept run (column 0 where nothing is kept)."""
    runs = [run_length(grid, r) if rule == KEEP_RUNS else 0 for r in range(ROWS)]
    kept = {cell_of(r, c) for r in range(ROWS) for c in range(runs[r])}
    gathered = sorted(c for i, c in enumerate(grid) if c != GAP and i not in kept)
    deck = iter(rng.shuffled(seed, rng.gaps_redeal_label(player_id, k), gathered))
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


class GapsState(GameState[Move | Redeal | Resign]):
    """A Gaps position. Never mutated; apply() builds the next one."""

    __slots__ = (
        "_status",
        "cards_in_place",
        "gaps",
        "grid",
        "player_id",
        "redeals",
        "redeals_used",
        "rule",
        "runs",
        "seed",
    )

    def __init__(
        self,
        *,
        seed: bytes,
        player_id: int,
        redeals: int,
        grid: tuple[int, ...],
        redeals_used: int = 0,
        status: Status | None = None,
        rule: RedealRule = KEEP_RUNS,
    ) -> None:
        self.seed = seed
        self.player_id = player_id
        self.redeals = redeals
        self.rule = rule
        self.grid = grid
        self.redeals_used = redeals_used
        self.gaps: tuple[int, ...] = tuple(i for i, c in enumerate(grid) if c == GAP)
        self.runs: tuple[int, ...] = tuple(run_length(grid, r) for r in range(ROWS))
        self.cards_in_place: int = sum(self.runs)  # the preserved runs' cards
        self._status = status or self._natural_status()

    def _next(
        self, grid: tuple[int, ...], gaps: tuple[int, ...], runs: tuple[int, ...]
    ) -> GapsState:
        """The state after a move: same seed, player and redeals (hot path, no rescans)."""
        state = object.__new__(GapsState)
        state.seed, state.player_id, state.redeals = self.seed, self.player_id, self.redeals
        state.rule = self.rule
        state.redeals_used = self.redeals_used
        state.grid, state.gaps, state.runs = grid, gaps, runs
        state.cards_in_place = sum(runs)
        state._status = state._natural_status()
        return state

    def _natural_status(self) -> Status:
        if self.cards_in_place == 4 * (COLS - 1):
            return WON
        if self.redeals_used >= self.redeals and is_blocked(self.grid, self.gaps):
            return LOST
        return PLAYING

    # -- figures ---------------------------------------------------------
    @property
    def status(self) -> Status:
        return self._status

    @property
    def progress(self) -> int:
        return self.cards_in_place

    @property
    def resets(self) -> int:
        return self.redeals_used

    @property
    def score(self) -> int:
        bonus = WIN_BONUS_NO_REDEAL if self._status is WON and not self.redeals_used else 0
        return self.cards_in_place - REDEAL_PENALTY * self.redeals_used + bonus

    @property
    def blocked(self) -> bool:
        return is_blocked(self.grid, self.gaps)

    def legal_moves(self) -> list[tuple[int, int]]:
        """Every legal (card, target cell), gaps in cell order, 2s in deck order."""
        moves: list[tuple[int, int]] = []
        for g in self.gaps:
            if g % COLS == 0:
                moves.extend((two, g) for two in TWOS)
            else:
                need = needed_card(self.grid, g)
                if need is not None:
                    moves.append((need, g))
        return moves

    # -- actions ---------------------------------------------------------
    def apply(self, action: Move | Redeal | Resign) -> tuple[GapsState, list[Event]]:
        if self._status is not PLAYING:
            raise IllegalAction("game_over", f"the game is over ({self._status.value})")
        if isinstance(action, Move):
            return self._move(action)
        if isinstance(action, Redeal):
            return self._redeal()
        if isinstance(action, Resign):
            state = self._with(self.grid, self.redeals_used, RESIGNED)
            return state, [{"type": "resigned"}]
        raise MalformedAction("unknown_action", f"not a Gaps action: {action!r}")

    def _move(self, action: Move) -> tuple[GapsState, list[Event]]:
        card = _CARD_OF[action.card]
        row, col = action.to
        target = row * COLS + col
        grid = self.grid
        if grid[target] != GAP:
            raise IllegalAction(
                "not_a_gap", f"cell {[row, col]} holds {cards.code(grid[target])}, not a gap"
            )
        if col == 0:
            if card % 13 != cards.TWO:
                raise IllegalAction("wrong_card", f"only a 2 may enter column 0, not {action.card}")
        elif card != needed_card(grid, target):
            raise self._refusal(card, target)
        source = grid.index(card)
        new = list(grid)
        new[target] = card
        new[source] = GAP
        new_grid = tuple(new)
        gaps = list(self.gaps)
        gaps[gaps.index(target)] = source
        runs = self.runs
        src_row, src_col = divmod(source, COLS)
        # A run can only grow at its end (the target) or break where a card left it.
        if col == runs[row] or src_col < runs[src_row]:
            changed = list(runs)
            changed[row] = run_length(new_grid, row)
            changed[src_row] = run_length(new_grid, src_row)
            runs = tuple(changed)
        state = self._next(new_grid, tuple(gaps), runs)
        events: list[Event] = [
            {"type": "moved", "card": action.card, "from": [src_row, src_col], "to": [row, col]}
        ]
        if state._status is not PLAYING:
            events.append({"type": "ended", "status": state._status.value})
        return state, events

    def _refusal(self, card: int, target: int) -> IllegalAction:
        """Why `card` may not enter the gap at `target` (outside column 0)."""
        where = row_col(target)
        if cards.rank(card) == cards.ACE:
            return IllegalAction("ace_out", f"{cards.code(card)}: aces are out of play")
        need = needed_card(self.grid, target)
        if need is None:
            left = self.grid[target - 1]
            why = "another gap" if left == GAP else cards.code(left)
            return IllegalAction("dead_gap", f"gap {where} is dead: left of it is {why}")
        return IllegalAction(
            "wrong_card", f"gap {where} takes only {cards.code(need)}, not {cards.code(card)}"
        )

    def _redeal(self) -> tuple[GapsState, list[Event]]:
        if self.redeals_used >= self.redeals:
            raise IllegalAction("no_redeal_left", f"no redeal left ({self.redeals} allowed)")
        if not self.blocked:
            raise IllegalAction("not_blocked", "a redeal is allowed only when no move is legal")
        k = self.redeals_used + 1
        grid = redeal_grid(self.grid, self.seed, self.player_id, k, self.rule)
        state = self._with(grid, k, None)
        return state, _with_end(state, [{"type": "redealt", "redeal": k}])

    def _with(self, grid: tuple[int, ...], redeals_used: int, status: Status | None) -> GapsState:
        return GapsState(
            seed=self.seed,
            player_id=self.player_id,
            redeals=self.redeals,
            grid=grid,
            redeals_used=redeals_used,
            status=status,
            rule=self.rule,
        )

    # -- views -----------------------------------------------------------
    def progress_view(self) -> dict[str, int]:
        return {
            "cards_in_place": self.cards_in_place,
            "redeals_used": self.redeals_used,
            "score": self.score,
        }

    def view(self) -> dict[str, Any]:
        cells = [_CELL_CODE[c] for c in self.grid]
        rows = [cells[start : start + COLS] for start in _ROW_STARTS]
        moves = self.legal_moves()  # none exactly when blocked
        legal = (
            [{"card": _CELL_CODE[c], "to": [g // COLS, g % COLS]} for c, g in moves]
            if self._status is PLAYING
            else []
        )
        return {
            "grid": rows,
            "redeals_left": self.redeals - self.redeals_used,
            "blocked": not moves,
            "legal": legal,
        }


def _with_end(state: GapsState, events: list[Event]) -> list[Event]:
    if state.status is not PLAYING:
        events.append({"type": "ended", "status": state.status.value})
    return events


class GapsRules(GameRules[Move | Redeal | Resign, GapsOptions]):
    name = "gaps"
    options_model = GapsOptions

    def parse_action(self, data: Any) -> Move | Redeal | Resign:
        try:
            action: Move | Redeal | Resign = _ACTION.validator.validate_python(data)
            return action
        except ValidationError as exc:
            raise MalformedAction("bad_action", f"bad Gaps action: {first_error(exc)}") from None

    def new_game(
        self, seed: bytes, options: GapsOptions, *, player_id: int, deal_attempt: int = 0
    ) -> GapsState:
        return GapsState(
            seed=seed,
            player_id=player_id,
            redeals=options.redeals,
            grid=deal_grid(seed, deal_attempt),
            rule=options.redeal,
        )

    def searches(self, options: GapsOptions) -> bool:
        return options.winnable

    def prepare_deal(self, seed: bytes, options: GapsOptions) -> PreparedDeal:
        """Attempt 0, unproven, unless the options ask for a winnable deal: then the first
        attempt gaps_search proves won with no redeal (CPU-heavy: run it off the event
        loop), its solution replayed through this engine before it is returned. After
        WIN_ATTEMPTS failures: the last attempt, not guaranteed."""
        if not options.winnable:
            return PreparedDeal()
        for attempt in range(WIN_ATTEMPTS):
            line = prove_win(deal_grid(seed, attempt), WIN_NODES)
            if line is not None:
                solution = [action_data(self.parse_action(a)) for a in line]
                end = self.replay(seed, options, solution, player_id=0, deal_attempt=attempt)
                if end.status is not WON or end.resets:  # a bug in the search, never a player's
                    raise AssertionError(f"the search's win of attempt {attempt} does not win")
                return PreparedDeal(attempt, True, solution)
        return PreparedDeal(WIN_ATTEMPTS - 1, False, None)


GAPS = GapsRules()
__all__ = ["GAPS", "ActionError", "GapsOptions", "GapsState", "Move", "Redeal", "Resign"]
