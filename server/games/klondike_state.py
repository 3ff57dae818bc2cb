"""A Klondike position and `apply`: the rules of play, the end and the score.

RULES-KLONDIKE.md "Actions" (draw, recycle, the moves to a column and to a
foundation, foundation back to column, the auto flip, auto, give up), "End" and
"Score" (points and moves counted): each rule is a step of `KlondikeState.apply`
below, and its refusals are the IllegalAction reasons. The actions come typed
from klondike_actions; the fit and safe rules are klondike_core's; what the
player is shown (view, "no moves", hint) is klondike_view's, bound here as methods.
"""

from __future__ import annotations

from server.games import cards, klondike_view
from server.games.base import (
    PLAYING,
    RESIGNED,
    WON,
    Event,
    GameState,
    IllegalAction,
    MalformedAction,
    Status,
)
from server.games.klondike_actions import Auto, Draw, KlondikeAction, Move, Resign
from server.games.klondike_core import (
    FOUNDATIONS,
    TABLEAU,
    WASTE,
    Column,
    Foundation,
    Place,
    Tableau,
    Waste,
    fits_column,
    fits_foundation,
    is_safe,
)

__all__ = ["KlondikeState"]

# RULES-KLONDIKE.md "Score"; the score never goes below 0 (_lift and _draw clamp it)
SCORE_WASTE_TO_COLUMN = 5
SCORE_TO_FOUNDATION = 10
SCORE_FLIP = 5
SCORE_FOUNDATION_TO_COLUMN = -15
SCORE_RECYCLE_DRAW1 = -100

_AUTO_SOURCES: tuple[Tableau | Waste, ...] = (*TABLEAU, WASTE)
"""The auto pass order: columns 0..6, then the waste."""


class KlondikeState(GameState[KlondikeAction]):
    """A Klondike position. Never mutated; apply() builds the next one."""

    __slots__ = (
        "_score",
        "_status",
        "cols",
        "draw",
        "found",
        "moves",
        "passes",
        "recycles_used",
        "stock",
        "waste",
    )

    def __init__(
        self,
        *,
        cols: tuple[Column, ...],
        stock: tuple[int, ...],
        waste: tuple[int, ...] = (),
        found: tuple[int, ...] = (0, 0, 0, 0),
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
        self._score = score
        self.moves = moves
        self._status = status

    def _next(
        self,
        cols: tuple[Column, ...],
        stock: tuple[int, ...],
        waste: tuple[int, ...],
        found: tuple[int, ...],
        recycles_used: int,
        score: int,
        moves: int,
        status: Status,
    ) -> KlondikeState:
        """The next position (same draw and passes); won when all 52 cards are home."""
        state = object.__new__(KlondikeState)
        state.cols, state.stock, state.waste, state.found = cols, stock, waste, found
        state.draw, state.passes = self.draw, self.passes
        state.recycles_used, state._score, state.moves = recycles_used, score, moves
        if status is PLAYING and sum(found) == 52:
            status = WON
        state._status = status
        return state

    # -- figures ---------------------------------------------------------
    @property
    def status(self) -> Status:
        return self._status

    @property
    def score(self) -> int:
        return self._score

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
        if self._status is not PLAYING:
            raise IllegalAction("game_over", f"the game is over ({self._status.value})")
        if isinstance(action, Move):
            return self._move(action)
        if isinstance(action, Draw):
            return self._draw()
        if isinstance(action, Auto):
            return self._auto()
        if isinstance(action, Resign):
            state = self._next(
                self.cols,
                self.stock,
                self.waste,
                self.found,
                self.recycles_used,
                self._score,
                self.moves,
                RESIGNED,
            )
            return state, [{"type": "resigned"}]
        raise MalformedAction("unknown_action", f"not a Klondike action: {action!r}")

    def _draw(self) -> tuple[KlondikeState, list[Event]]:
        if self.stock:
            n = min(self.draw, len(self.stock))
            turned = self.stock[-n:][::-1]  # the stock's top comes first
            state = self._next(
                self.cols,
                self.stock[:-n],
                self.waste + turned,
                self.found,
                self.recycles_used,
                self._score,
                self.moves + 1,
                self._status,
            )
            return state, [{"type": "drew", "cards": [cards.code(c) for c in turned]}]
        if not self.waste:
            raise IllegalAction("nothing_to_draw", "the stock and the waste are both empty")
        if self.recycles_left is not None and self.recycles_left <= 0:
            raise IllegalAction(
                "no_recycle_left", f"no recycle left ({self.passes} passes allowed)"
            )
        penalty = SCORE_RECYCLE_DRAW1 if self.draw == 1 else 0
        state = self._next(
            self.cols,
            self.waste[::-1],
            (),
            self.found,
            self.recycles_used + 1,
            max(0, self._score + penalty),
            self.moves + 1,
            self._status,
        )
        return state, [{"type": "recycled", "recycle": state.recycles_used}]

    def _move(self, m: Move) -> tuple[KlondikeState, list[Event]]:
        source, to = m.source, m.to
        if source is to:
            raise IllegalAction("same_place", "a move needs two different places")
        if isinstance(to, Waste):
            raise IllegalAction("bad_target", "nothing can be moved onto the waste")
        if m.count != 1 and not (isinstance(source, Tableau) and isinstance(to, Tableau)):
            raise IllegalAction("bad_count", "only moves between columns take more than 1 card")
        moving: tuple[int, ...]
        if isinstance(source, Waste):
            moving = self._waste_top()
        elif isinstance(source, Foundation):
            if not isinstance(to, Tableau):
                raise IllegalAction("bad_target", "a foundation card can only go to a column")
            moving = (self._foundation_top(source),)
        else:
            moving = self._column_group(source, m.count)
        if isinstance(to, Foundation):
            return self._to_foundation(source, to, moving[0])
        return self._to_column(source, to, moving)

    def _waste_top(self) -> tuple[int]:
        if not self.waste:
            raise IllegalAction("empty_source", "the waste is empty")
        return (self.waste[-1],)

    def _foundation_top(self, place: Foundation) -> int:
        suit = place.suit
        if not self.found[suit]:
            raise IllegalAction("empty_source", f"foundation {place.text} is empty")
        return suit * 13 + self.found[suit] - 1

    def _column_group(self, place: Tableau, count: int) -> tuple[int, ...]:
        up = self.cols[place.column][1]
        if not up:
            raise IllegalAction("empty_source", f"column {place.text} is empty")
        if count > len(up):
            raise IllegalAction(
                "face_down",
                f"column {place.text} has only {len(up)} face-up cards; face-down cards never move",
            )
        return up[-count:]

    def _to_foundation(
        self, source: Place, to: Foundation, card: int
    ) -> tuple[KlondikeState, list[Event]]:
        suit = to.suit
        if card // 13 != suit or not self.fits_foundation(card):
            need = (
                "nothing more"
                if self.found[suit] == 13
                else cards.code(suit * 13 + self.found[suit])
            )
            raise IllegalAction("wrong_card", f"{to.text} takes {need}, not {cards.code(card)}")
        return self._lift(source, 1, card, to, SCORE_TO_FOUNDATION)

    def _to_column(
        self, source: Place, to: Tableau, moving: tuple[int, ...]
    ) -> tuple[KlondikeState, list[Event]]:
        onto = self.cols[to.column][1]
        if not fits_column(moving[0], onto):
            where = cards.code(onto[-1]) if onto else "an empty column (only a King)"
            raise IllegalAction("wrong_card", f"{cards.code(moving[0])} does not fit on {where}")
        points = (
            SCORE_WASTE_TO_COLUMN
            if source is WASTE
            else SCORE_FOUNDATION_TO_COLUMN
            if isinstance(source, Foundation)
            else 0
        )
        return self._lift(source, len(moving), moving[0], to, points, moving)

    def _lift(
        self,
        source: Place,
        count: int,
        card: int,
        to: Tableau | Foundation,
        points: int,
        moving: tuple[int, ...] | None = None,
    ) -> tuple[KlondikeState, list[Event]]:
        """Take `count` cards from `source`, put them on `to`, flip, score, count the move."""
        cols, waste, found = list(self.cols), self.waste, list(self.found)
        events: list[Event] = [
            {
                "type": "moved",
                "from": source.text,
                "to": to.text,
                "count": count,
                "card": cards.code(card),
            }
        ]
        score = self._score
        if isinstance(source, Waste):
            waste = waste[:-1]
        elif isinstance(source, Foundation):
            found[card // 13] -= 1
        else:
            col = source.column
            down, up = cols[col]
            up = up[:-count]
            if not up and down:
                up, down = (down[-1],), down[:-1]
                score += SCORE_FLIP
                events.append({"type": "flipped", "column": col, "card": cards.code(up[0])})
            cols[col] = (down, up)
        if isinstance(to, Foundation):
            found[card // 13] += 1
        else:
            t = to.column
            cols[t] = (cols[t][0], cols[t][1] + (moving or (card,)))
        state = self._next(
            tuple(cols),
            self.stock,
            waste,
            tuple(found),
            self.recycles_used,
            max(0, score + points),
            self.moves + 1,
            self._status,
        )
        if state._status is WON:
            events.append({"type": "ended", "status": Status.WON.value})
        return state, events

    def _auto(self) -> tuple[KlondikeState, list[Event]]:
        state, events = self, []
        while True:
            moved = False
            for source in _AUTO_SOURCES:
                card = state._top_of(source)
                if card is not None and state.is_safe(card):
                    to = FOUNDATIONS[card // 13]
                    state, evs = state._lift(source, 1, card, to, SCORE_TO_FOUNDATION)
                    events.extend(evs)
                    moved = True
            if not moved:
                break
        if state is self:
            raise IllegalAction("no_safe_card", "no card can go up safely")
        return state, events

    def _top_of(self, source: Tableau | Waste) -> int | None:
        if isinstance(source, Waste):
            return self.waste[-1] if self.waste else None
        up = self.cols[source.column][1]
        return up[-1] if up else None

    # -- what the player is shown (klondike_view's functions, bound as methods) --
    view = klondike_view.view
    hint = klondike_view.hint
    future_waste_tops = klondike_view.future_waste_tops

    @property
    def no_moves(self) -> bool:
        """The rules' "no moves" warning: no hint is left."""
        return klondike_view.hint(self) is None

    def progress_view(self) -> dict[str, int]:
        return {
            "cards_home": self.progress,
            "recycles_used": self.recycles_used,
            "score": self.score,
            "moves": self.moves,
        }
