"""Gaps (Montana), variant "Semicolon": the rules of docs/RULES-GAPS.md, one engine for
the whole family.

A state holds the grid (gaps_layout.py: 52 cells, row-major, a card 0..51 or GAP). Aces
are removed after the deal, so exactly 48 cards and 4 gaps are always on the grid.

Options (gaps_options.py): `redeal` "keep_runs" (default) or "reshuffle_all" (a redeal
keeps nothing), `winnable` (the deal is searched, attempt after attempt, until
gaps_search proves a win with no redeal; prepare_deal replays that proof here), and
`variant` (v1.4: gaps, montana, addiction, free_parking), whose declared flags the
deal, the redeal and the accepted cards read.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError
from pydantic.functional_validators import AfterValidator

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
from server.games.gaps_layout import (
    ACES,
    COLS,
    GAP,
    ROWS,
    TWOS,
    accepted_cards,
    card_below,
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
from server.games.gaps_options import (
    GAPS_VARIANT,
    KEEP_RUNS,
    MAX_REDEALS,
    RESHUFFLE_ALL,
    VARIANTS,
    GapsOptions,
    RedealRule,
    Variant,
)
from server.games.gaps_search import prove_win

WIN_BONUS_NO_REDEAL = 10
REDEAL_PENALTY = 5


def _card_code(text: str) -> str:
    return cards.code(cards.parse(text))


CardCode = Annotated[str, AfterValidator(_card_code)]
Row = Annotated[int, Field(strict=True, ge=0, le=ROWS - 1)]
Col = Annotated[int, Field(strict=True, ge=0, le=COLS - 1)]


class _Action(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class GapsMove(_Action):
    """Move `card` into the gap at cell `to` = [row, col]."""

    kind: Literal["move"] = "move"
    card: CardCode
    to: tuple[Row, Col]


class GapsRedeal(_Action):
    kind: Literal["redeal"] = "redeal"


class GapsResign(_Action):
    kind: Literal["resign"] = "resign"


GapsAction = Annotated[GapsMove | GapsRedeal | GapsResign, Field(discriminator="kind")]
_ACTION = TypeAdapter(GapsAction)


WIN_ATTEMPTS = 1_000  # winnable: deal attempts searched before giving up (never seen)
WIN_NODES = 5_000  # winnable: positions per attempt (least CPU per proven deal)


_CARD_OF = {code: i for i, code in enumerate(cards.CODES)}
_TWO_MOVES = {g: tuple((two, g) for two in TWOS) for g in range(0, ROWS * COLS, COLS)}
_CELL_CODE: tuple[str | None, ...] = (*cards.CODES, None)  # index = cell value (GAP = -1: last)


class GapsState(GameState[GapsMove | GapsRedeal | GapsResign]):
    """A Gaps position. Never mutated; apply() builds the next one."""

    __slots__ = (
        "_codes",
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
        "variant",
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
        variant: Variant = GAPS_VARIANT,
    ) -> None:
        self.seed = seed
        self.player_id = player_id
        self.redeals = redeals
        self.rule = rule
        self.variant = variant
        self.grid = grid
        self.redeals_used = redeals_used
        self.gaps: tuple[int, ...] = tuple(i for i, c in enumerate(grid) if c == GAP)
        self.runs: tuple[int, ...] = tuple(run_length(grid, r) for r in range(ROWS))
        self.cards_in_place: int = sum(self.runs)  # the preserved runs' cards
        self._status = status or self._natural_status()
        self._codes: list[str | None] | None = None  # the grid's codes, once viewed

    def _next(
        self, grid: tuple[int, ...], gaps: tuple[int, ...], runs: tuple[int, ...]
    ) -> GapsState:
        """The state after a move: same seed, player and redeals (hot path, no rescans)."""
        state = object.__new__(GapsState)
        state.seed, state.player_id, state.redeals = self.seed, self.player_id, self.redeals
        state.rule, state.variant = self.rule, self.variant
        state.redeals_used = self.redeals_used
        state.grid, state.gaps, state.runs = grid, gaps, runs
        state.cards_in_place = sum(runs)
        state._status = state._natural_status()
        state._codes = None
        return state

    def _natural_status(self) -> Status:
        if self.cards_in_place == 4 * (COLS - 1):
            return WON
        if self.redeals_used >= self.redeals and self.blocked:
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
        return is_blocked(self.grid, self.gaps, self.variant.right_neighbour)

    def legal_moves(self) -> list[tuple[int, int]]:
        """Every legal (card, target cell), gaps in cell order, 2s in deck order."""
        moves: list[tuple[int, int]] = []
        grid, right = self.grid, self.variant.right_neighbour
        for g in self.gaps:
            if g % COLS == 0:
                moves.extend(_TWO_MOVES[g])
            elif right:
                moves.extend((card, g) for card in accepted_cards(grid, g, True))
            else:  # (needed_card, inline: the view lists the moves with every action)
                left = grid[g - 1]
                if left != GAP and left % 13 != cards.KING:
                    moves.append((left + 1, g))
        return moves

    # -- actions ---------------------------------------------------------
    def apply(self, action: GapsMove | GapsRedeal | GapsResign) -> tuple[GapsState, list[Event]]:
        if self._status is not PLAYING:
            raise IllegalAction("game_over", f"the game is over ({self._status.value})")
        if isinstance(action, GapsMove):
            return self._move(action)
        if isinstance(action, GapsRedeal):
            return self._redeal()
        if isinstance(action, GapsResign):
            state = self._with(self.grid, self.redeals_used, RESIGNED)
            return state, [{"type": "resigned"}]
        raise MalformedAction("unknown_action", f"not a Gaps action: {action!r}")

    def _move(self, action: GapsMove) -> tuple[GapsState, list[Event]]:
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
        elif card != needed_card(grid, target) and not (
            self.variant.right_neighbour and card == card_below(grid, target)
        ):
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
        codes = self._codes
        if codes is not None:  # a viewed game: its next view changes two cells of this one
            codes = state._codes = codes.copy()
            codes[target], codes[source] = action.card, None
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
        if self.variant.fixed_twos and cards.rank(card) == cards.TWO:
            return IllegalAction(
                "fixed_two", f"{cards.code(card)}: in montana the 2s stay where they are dealt"
            )
        right = self.variant.right_neighbour
        need = accepted_cards(self.grid, target, right)
        if not need:
            return IllegalAction("dead_gap", f"gap {where} is dead: {self._dead_why(target)}")
        takes = " or ".join(cards.code(c) for c in need)
        why = f"gap {where} takes only {takes}, not {cards.code(card)}"
        return IllegalAction("wrong_card", why)

    def _dead_why(self, target: int) -> str:
        left = self.grid[target - 1]
        why = f"left of it is {'another gap' if left == GAP else cards.code(left)}"
        if not self.variant.right_neighbour:
            return why
        if target % COLS == COLS - 1:
            return f"{why} and it has no right neighbour"
        right = self.grid[target + 1]
        return f"{why} and right of it is {'another gap' if right == GAP else cards.code(right)}"

    def _redeal(self) -> tuple[GapsState, list[Event]]:
        if self.redeals_used >= self.redeals:
            raise IllegalAction("no_redeal_left", f"no redeal left ({self.redeals} allowed)")
        if not self.blocked:
            raise IllegalAction("not_blocked", "a redeal is allowed only when no move is legal")
        k = self.redeals_used + 1
        grid = redeal_grid(self.grid, self.seed, self.player_id, k, self.rule, self.variant)
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
            variant=self.variant,
        )

    # -- views -----------------------------------------------------------
    def progress_view(self) -> dict[str, int]:
        return {
            "cards_in_place": self.cards_in_place,
            "redeals_used": self.redeals_used,
            "score": self.score,
        }

    def view(self) -> dict[str, Any]:
        cells = self._codes
        if cells is None:  # (a move keeps its parent's codes up to date: `_move`)
            cells = self._codes = [_CELL_CODE[c] for c in self.grid]
        rows = [cells[0:13], cells[13:26], cells[26:39], cells[39:52]]  # ROWS x COLS
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


class GapsRules(GameRules[GapsMove | GapsRedeal | GapsResign, GapsOptions]):
    name = "gaps"
    options_model = GapsOptions

    def parse_action(self, data: Any) -> GapsMove | GapsRedeal | GapsResign:
        try:
            action: GapsMove | GapsRedeal | GapsResign = _ACTION.validator.validate_python(data)
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
            grid=deal_grid(seed, deal_attempt, options.rules),
            rule=options.redeal,
            variant=options.rules,
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
__all__ = [
    "ACES",
    "COLS",
    "GAP",
    "GAPS",
    "KEEP_RUNS",
    "MAX_REDEALS",
    "RESHUFFLE_ALL",
    "ROWS",
    "TWOS",
    "VARIANTS",
    "ActionError",
    "GapsMove",
    "GapsOptions",
    "GapsRedeal",
    "GapsResign",
    "GapsState",
    "RedealRule",
    "Variant",
    "accepted_cards",
    "card_below",
    "cell_of",
    "deal_grid",
    "format_grid",
    "is_blocked",
    "needed_card",
    "parse_grid",
    "redeal_grid",
    "row_col",
    "run_length",
]
