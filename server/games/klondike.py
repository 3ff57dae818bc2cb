"""Klondike exactly as docs/RULES-KLONDIKE.md says: moves, auto, score, hint, no-moves.

Piles are tuples with their top card last. A column is (down, up): the face-down
cards and the face-up run on them. Foundations hold a count per suit (C, D, H, S);
a suit's top card is rank count-1. The stock's top is its last card.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from server import rng
from server.games import cards
from server.games.base import (
    Event,
    GameRules,
    GameState,
    IllegalAction,
    MalformedAction,
    Status,
    first_error,
)

COLUMNS = 7
KING = 12
Column = tuple[tuple[int, ...], tuple[int, ...]]

SCORE_WASTE_TO_COLUMN = 5
SCORE_TO_FOUNDATION = 10
SCORE_FLIP = 5
SCORE_FOUNDATION_TO_COLUMN = -15
SCORE_RECYCLE_DRAW1 = -100

Place = Literal["waste", "t0", "t1", "t2", "t3", "t4", "t5", "t6", "fC", "fD", "fH", "fS"]


class _Action(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class Draw(_Action):
    """Turn 1 or 3 stock cards onto the waste, or recycle the waste when the stock is empty."""

    kind: Literal["draw"] = "draw"


class Move(_Action):
    """Move `count` cards from one place to another (count > 1 only between columns)."""

    kind: Literal["move"] = "move"
    source: Place = Field(alias="from")
    to: Place
    count: Annotated[int, Field(strict=True, ge=1, le=13)] = 1


class Auto(_Action):
    kind: Literal["auto"] = "auto"


class Resign(_Action):
    kind: Literal["resign"] = "resign"


KlondikeAction = Draw | Move | Auto | Resign
_ACTION: TypeAdapter[Any] = TypeAdapter(Annotated[KlondikeAction, Field(discriminator="kind")])


class KlondikeOptions(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    draw: Literal[1, 3] = 1
    passes: Annotated[int, Field(strict=True, ge=1, le=99)] | None = None
    guaranteed: bool = False
    hints: bool = False


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


class KlondikeState(GameState[KlondikeAction]):
    """A Klondike position. Never mutated; apply() builds the next one."""

    __slots__ = (
        "_status",
        "cols",
        "draw",
        "found",
        "moves",
        "passes",
        "recycles_used",
        "score",
        "stock",
        "waste",
    )

    def __init__(
        self,
        *,
        cols: tuple[Column, ...],
        stock: tuple[int, ...],
        waste: tuple[int, ...] = (),
        found: tuple[int, int, int, int] = (0, 0, 0, 0),
        draw: int = 1,
        passes: int | None = None,
        recycles_used: int = 0,
        score: int = 0,
        moves: int = 0,
        status: Status = Status.PLAYING,
    ) -> None:
        self.cols = cols
        self.stock = stock
        self.waste = waste
        self.found = found
        self.draw = draw
        self.passes = passes
        self.recycles_used = recycles_used
        self.score = score
        self.moves = moves
        self._status = status

    def _replace(self, **changes: Any) -> KlondikeState:
        fields = {
            "cols": self.cols,
            "stock": self.stock,
            "waste": self.waste,
            "found": self.found,
            "draw": self.draw,
            "passes": self.passes,
            "recycles_used": self.recycles_used,
            "score": self.score,
            "moves": self.moves,
            "status": self._status,
        }
        fields.update(changes)
        if sum(fields["found"]) == 52 and fields["status"] is Status.PLAYING:
            fields["status"] = Status.WON
        return KlondikeState(**fields)

    # -- figures ---------------------------------------------------------
    @property
    def status(self) -> Status:
        return self._status

    @property
    def progress(self) -> int:
        return sum(self.found)

    @property
    def resets(self) -> int:
        return self.recycles_used

    @property
    def recycles_left(self) -> int | None:
        return None if self.passes is None else self.passes - 1 - self.recycles_used

    def fits_foundation(self, card: int) -> bool:
        return fits_foundation(self.found, card)

    def is_safe(self, card: int) -> bool:
        return is_safe(self.found, card)

    # -- actions ---------------------------------------------------------
    def apply(self, action: KlondikeAction) -> tuple[KlondikeState, list[Event]]:
        if self._status is not Status.PLAYING:
            raise IllegalAction("game_over", f"the game is over ({self._status.value})")
        if isinstance(action, Move):
            return self._move(action)
        if isinstance(action, Draw):
            return self._draw()
        if isinstance(action, Auto):
            return self._auto()
        if isinstance(action, Resign):
            return self._replace(status=Status.RESIGNED), [{"type": "resigned"}]
        raise MalformedAction("unknown_action", f"not a Klondike action: {action!r}")

    def _draw(self) -> tuple[KlondikeState, list[Event]]:
        if self.stock:
            n = min(self.draw, len(self.stock))
            turned = self.stock[-n:][::-1]  # the stock's top comes first
            state = self._replace(
                stock=self.stock[:-n], waste=self.waste + turned, moves=self.moves + 1
            )
            return state, [{"type": "drew", "cards": [cards.code(c) for c in turned]}]
        if not self.waste:
            raise IllegalAction("nothing_to_draw", "the stock and the waste are both empty")
        if self.recycles_left is not None and self.recycles_left <= 0:
            raise IllegalAction(
                "no_recycle_left", f"no recycle left ({self.passes} passes allowed)"
            )
        penalty = SCORE_RECYCLE_DRAW1 if self.draw == 1 else 0
        state = self._replace(
            stock=self.waste[::-1],
            waste=(),
            recycles_used=self.recycles_used + 1,
            score=max(0, self.score + penalty),
            moves=self.moves + 1,
        )
        return state, [{"type": "recycled", "recycle": state.recycles_used}]

    def _move(self, m: Move) -> tuple[KlondikeState, list[Event]]:
        if m.source == m.to:
            raise IllegalAction("same_place", "a move needs two different places")
        if m.to == "waste":
            raise IllegalAction("bad_target", "nothing can be moved onto the waste")
        if m.count != 1 and not (m.source[0] == "t" and m.to[0] == "t"):
            raise IllegalAction("bad_count", "only moves between columns take more than 1 card")
        if m.source == "waste":
            moving = self._waste_top()
        elif m.source[0] == "f":
            if m.to[0] != "t":
                raise IllegalAction("bad_target", "a foundation card can only go to a column")
            moving = (self._foundation_top(m.source),)
        else:
            moving = self._column_group(int(m.source[1]), m.count)
        if m.to[0] == "f":
            return self._to_foundation(m, moving[0])
        return self._to_column(m, moving)

    def _waste_top(self) -> tuple[int]:
        if not self.waste:
            raise IllegalAction("empty_source", "the waste is empty")
        return (self.waste[-1],)

    def _foundation_top(self, place: str) -> int:
        suit = cards.SUITS.index(place[1])
        if not self.found[suit]:
            raise IllegalAction("empty_source", f"foundation {place} is empty")
        return suit * 13 + self.found[suit] - 1

    def _column_group(self, col: int, count: int) -> tuple[int, ...]:
        up = self.cols[col][1]
        if not up:
            raise IllegalAction("empty_source", f"column t{col} is empty")
        if count > len(up):
            raise IllegalAction(
                "face_down",
                f"column t{col} has only {len(up)} face-up cards; face-down cards never move",
            )
        return up[-count:]

    def _to_foundation(self, m: Move, card: int) -> tuple[KlondikeState, list[Event]]:
        suit = cards.SUITS.index(m.to[1])
        if card // 13 != suit or not self.fits_foundation(card):
            need = (
                "nothing more"
                if self.found[suit] == 13
                else cards.code(suit * 13 + self.found[suit])
            )
            raise IllegalAction("wrong_card", f"{m.to} takes {need}, not {cards.code(card)}")
        return self._lift(m.source, 1, card, m.to, SCORE_TO_FOUNDATION)

    def _to_column(self, m: Move, moving: tuple[int, ...]) -> tuple[KlondikeState, list[Event]]:
        target = int(m.to[1])
        onto = self.cols[target][1]
        if not fits_column(moving[0], onto):
            where = cards.code(onto[-1]) if onto else "an empty column (only a King)"
            raise IllegalAction("wrong_card", f"{cards.code(moving[0])} does not fit on {where}")
        points = (
            SCORE_WASTE_TO_COLUMN
            if m.source == "waste"
            else SCORE_FOUNDATION_TO_COLUMN
            if m.source[0] == "f"
            else 0
        )
        return self._lift(m.source, len(moving), moving[0], m.to, points, moving)

    def _lift(
        self,
        source: str,
        count: int,
        card: int,
        to: str,
        points: int,
        moving: tuple[int, ...] | None = None,
    ) -> tuple[KlondikeState, list[Event]]:
        """Take `count` cards from `source`, put them on `to`, flip, score, count the move."""
        cols, waste, found = list(self.cols), self.waste, list(self.found)
        events: list[Event] = []
        score = self.score
        if source == "waste":
            waste = waste[:-1]
        elif source[0] == "f":
            found[card // 13] -= 1
        else:
            col = int(source[1])
            down, up = cols[col]
            up = up[:-count]
            if not up and down:
                up, down = (down[-1],), down[:-1]
                score += SCORE_FLIP
                events.append({"type": "flipped", "column": col, "card": cards.code(up[0])})
            cols[col] = (down, up)
        if to[0] == "f":
            found[card // 13] += 1
        else:
            t = int(to[1])
            cols[t] = (cols[t][0], cols[t][1] + (moving or (card,)))
        events.insert(
            0, {"type": "moved", "from": source, "to": to, "count": count, "card": cards.code(card)}
        )
        state = self._replace(
            cols=tuple(cols),
            waste=waste,
            found=tuple(found),
            score=max(0, score + points),
            moves=self.moves + 1,
        )
        if state.status is Status.WON:
            events.append({"type": "ended", "status": "won"})
        return state, events

    def _auto(self) -> tuple[KlondikeState, list[Event]]:
        state, events = self, []
        while True:
            moved = False
            for source in (*(f"t{i}" for i in range(COLUMNS)), "waste"):
                card = state._top_of(source)
                if card is not None and state.is_safe(card):
                    to = "f" + cards.SUITS[card // 13]
                    state, evs = state._lift(source, 1, card, to, SCORE_TO_FOUNDATION)
                    events.extend(evs)
                    moved = True
            if not moved:
                break
        if state is self:
            raise IllegalAction("no_safe_card", "no card can go up safely")
        return state, events

    def _top_of(self, source: str) -> int | None:
        if source == "waste":
            return self.waste[-1] if self.waste else None
        up = self.cols[int(source[1])][1]
        return up[-1] if up else None

    # -- advice ----------------------------------------------------------
    def hint(self) -> KlondikeAction | None:
        """The first suggestion in the rules' order of seven; None means 'no moves'."""
        for step in (
            self._hint_safe_up,
            self._hint_uncover,
            self._hint_any_up,
            self._hint_waste_down,
            self._hint_empty_for_king,
            self._hint_part_frees,
            self._hint_draw,
        ):
            action = step()
            if action is not None:
                return action
        return None

    @property
    def no_moves(self) -> bool:
        return self.hint() is None

    def _sources(self) -> Iterator[tuple[str, int]]:
        """(place, card) of each column's last card, columns 0..6, then the waste top."""
        for i in range(COLUMNS):
            up = self.cols[i][1]
            if up:
                yield f"t{i}", up[-1]
        if self.waste:
            yield "waste", self.waste[-1]

    def _up(self, source: str, card: int) -> Move:
        return Move(source=source, to="f" + cards.SUITS[card // 13])  # type: ignore[arg-type]

    def _hint_safe_up(self) -> Move | None:
        return next((self._up(p, c) for p, c in self._sources() if self.is_safe(c)), None)

    def _hint_any_up(self) -> Move | None:
        return next((self._up(p, c) for p, c in self._sources() if self.fits_foundation(c)), None)

    def _target_for(self, card: int, exclude: int) -> int | None:
        return next(
            (t for t in range(COLUMNS) if t != exclude and fits_column(card, self.cols[t][1])),
            None,
        )

    def _hint_uncover(self) -> Move | None:
        order = sorted(range(COLUMNS), key=lambda i: (-len(self.cols[i][0]), i))
        for i in order:
            down, up = self.cols[i]
            if down and up:
                t = self._target_for(up[0], i)
                if t is not None:
                    return _col_move(i, t, len(up))
        return None

    def _hint_waste_down(self) -> Move | None:
        if not self.waste:
            return None
        t = self._target_for(self.waste[-1], -1)
        return None if t is None else Move(source="waste", to=f"t{t}")  # type: ignore[arg-type]

    def _king_waiting(self) -> bool:
        is_king = lambda c: c % 13 == KING  # noqa: E731
        return (
            any(map(is_king, self.stock))
            or any(map(is_king, self.waste))
            or any(down and up and is_king(up[0]) for down, up in self.cols)
        )

    def _hint_empty_for_king(self) -> Move | None:
        if not self._king_waiting():
            return None
        for i, (down, up) in enumerate(self.cols):
            if up and not down:
                t = next(
                    (
                        t
                        for t in range(COLUMNS)
                        if t != i and self.cols[t][1] and fits_column(up[0], self.cols[t][1])
                    ),
                    None,
                )
                if t is not None:
                    return _col_move(i, t, len(up))
        return None

    def _hint_part_frees(self) -> Move | None:
        for i, (_, up) in enumerate(self.cols):
            for n in range(1, len(up)):
                if not self.fits_foundation(up[-n - 1]):
                    continue
                t = self._target_for(up[-n], i)
                if t is not None:
                    return _col_move(i, t, n)
        return None

    def _hint_draw(self) -> Draw | None:
        fits = lambda c: self.fits_foundation(c) or self._target_for(c, -1) is not None  # noqa: E731
        return Draw() if any(fits(c) for c in self.future_waste_tops()) else None

    def future_waste_tops(self) -> list[int]:
        """Cards that would reach the waste's top by drawing: the stock to its end, then
        one more whole pass when a recycle is still allowed."""
        tops: list[int] = []
        stock, waste = list(self.stock), list(self.waste)
        passes = 2 if self.recycles_left is None or self.recycles_left > 0 else 1
        for p in range(passes):
            if p == 1:
                stock, waste = waste[::-1], []
            while stock:
                n = min(self.draw, len(stock))
                for _ in range(n):
                    waste.append(stock.pop())
                tops.append(waste[-1])
        return tops

    # -- views -----------------------------------------------------------
    def progress_view(self) -> dict[str, int]:
        return {
            "cards_home": self.progress,
            "recycles_used": self.recycles_used,
            "score": self.score,
            "moves": self.moves,
        }

    def view(self) -> dict[str, Any]:
        """Only what the player may see: counts for face-down cards and the stock."""
        return {
            "tableau": [
                {"down": len(down), "up": [cards.code(c) for c in up]} for down, up in self.cols
            ],
            "stock": len(self.stock),
            "waste": [cards.code(c) for c in self.waste[-3:]],
            "waste_count": len(self.waste),
            "foundations": {
                s: (cards.code(i * 13 + self.found[i] - 1) if self.found[i] else None)
                for i, s in enumerate(cards.SUITS)
            },
            "recycles_left": self.recycles_left,
            "no_moves": self.no_moves if self._status is Status.PLAYING else False,
        }


def _col_move(source: int, target: int, count: int) -> Move:
    return Move(source=f"t{source}", to=f"t{target}", count=count)  # type: ignore[arg-type]


class KlondikeRules(GameRules[KlondikeAction, KlondikeOptions]):
    name = "klondike"
    options_model = KlondikeOptions

    def parse_action(self, data: Any) -> KlondikeAction:
        try:
            return _ACTION.validator.validate_python(data)
        except ValidationError as exc:
            raise MalformedAction(
                "bad_action", f"bad Klondike action: {first_error(exc)}"
            ) from None

    def new_game(
        self, seed: bytes, options: KlondikeOptions, *, player_id: int, deal_attempt: int = 0
    ) -> KlondikeState:
        cols, stock = deal(seed, deal_attempt)
        return KlondikeState(cols=cols, stock=stock, draw=options.draw, passes=options.passes)

    def prepare_deal(
        self, seed: bytes, options: KlondikeOptions
    ) -> tuple[int, bool, list[dict[str, Any]] | None]:
        """(deal attempt, proven, solution) for a tournament; searches when guaranteed."""
        if not options.guaranteed:
            return 0, False, None
        from server.games.klondike_search import guaranteed_deal

        return guaranteed_deal(seed, options)


KLONDIKE = KlondikeRules()
