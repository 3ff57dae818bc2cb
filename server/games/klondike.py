"""Klondike exactly as docs/RULES-KLONDIKE.md says: moves, auto, score, hint, no-moves.

The layout, places, deal and fit rules are klondike_core's (shared with the deal
search). Places arrive as protocol texts ("t3", "fH", "waste") and are turned
into klondike_core's typed members once, by the action parser; the engine only
ever sees those members.
"""

from __future__ import annotations

from collections.abc import Iterator
from operator import attrgetter
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    GetCoreSchemaHandler,
    GetJsonSchemaHandler,
    TypeAdapter,
    ValidationError,
)
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import PydanticCustomError, core_schema

from server.games import cards
from server.games.base import (
    PLAYING,
    RESIGNED,
    WON,
    Event,
    GameRules,
    GameState,
    IllegalAction,
    MalformedAction,
    PreparedDeal,
    Status,
    first_error,
)
from server.games.klondike_core import (
    COLUMNS,
    FOUNDATIONS,
    KING,
    PLACE_NAMES,
    PLACES,
    TABLEAU,
    WASTE,
    Column,
    Foundation,
    KlondikeOptions,
    Place,
    Tableau,
    Waste,
    deal,
    fits_column,
    fits_foundation,
    is_safe,
)
from server.games.klondike_search import guaranteed_deal

__all__ = [
    "COLUMNS",
    "KING",
    "KLONDIKE",
    "Auto",
    "Column",
    "Draw",
    "KlondikeAction",
    "KlondikeOptions",
    "KlondikeRules",
    "KlondikeState",
    "Move",
    "Place",
    "Resign",
    "deal",
    "fits_column",
    "fits_foundation",
    "is_safe",
]

SCORE_WASTE_TO_COLUMN = 5
SCORE_TO_FOUNDATION = 10
SCORE_FLIP = 5
SCORE_FOUNDATION_TO_COLUMN = -15
SCORE_RECYCLE_DRAW1 = -100


class _PlaceTable(dict[object, Place]):
    """Protocol texts, and the members themselves, to places; a miss is a validation error."""

    def __missing__(self, key: object) -> Place:
        raise PydanticCustomError(
            "place",
            "unknown place {place}: use {names}",
            {"place": repr(key), "names": PLACE_NAMES},
        )


_PLACE_OF = _PlaceTable({p: p for p in PLACES.values()})
_PLACE_OF.update(PLACES)


class _PlaceSchema:
    """How pydantic reads and writes a place: a text (or a member) looked up in _PLACE_OF by
    the dict's own __getitem__ (C code, no Python frame on a hit, so a move parses as fast
    as the former Literal check), written back as its text."""

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        is_text = core_schema.custom_error_schema(
            core_schema.is_instance_schema((str, Waste, Tableau, Foundation)),
            custom_error_type="place",
            custom_error_message=f"a place is one of the texts {PLACE_NAMES}",
        )
        return core_schema.chain_schema(
            [is_text, core_schema.no_info_plain_validator_function(_PLACE_OF.__getitem__)],
            serialization=core_schema.plain_serializer_function_ser_schema(
                attrgetter("text"), return_schema=core_schema.str_schema()
            ),
        )

    def __get_pydantic_json_schema__(
        self, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        return {"type": "string", "enum": list(PLACES)}


PlaceField = Annotated[Place, _PlaceSchema()]
"""A place in an action: parsed from and written as its protocol text."""


class _Action(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class Draw(_Action):
    """Turn 1 or 3 stock cards onto the waste, or recycle the waste when the stock is empty."""

    kind: Literal["draw"] = "draw"


class Move(_Action):
    """Move `count` cards from one place to another (count > 1 only between columns).

    On the wire `source` is "from"; build one with `Move(source=TABLEAU[3], to=FOUNDATIONS[2])`
    (protocol texts are accepted too: `Move(source="t3", to="fH")`).
    """

    kind: Literal["move"] = "move"
    source: PlaceField = Field(validation_alias="from", serialization_alias="from")
    to: PlaceField
    count: Annotated[int, Field(strict=True, ge=1, le=13)] = 1


class Auto(_Action):
    kind: Literal["auto"] = "auto"


class Resign(_Action):
    kind: Literal["resign"] = "resign"


KlondikeAction = Draw | Move | Auto | Resign
_ACTION: TypeAdapter[KlondikeAction] = TypeAdapter(
    Annotated[KlondikeAction, Field(discriminator="kind")]
)
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

    def _sources(self) -> Iterator[tuple[Tableau | Waste, int]]:
        """(place, card) of each column's last card, columns 0..6, then the waste top."""
        for place in TABLEAU:
            up = self.cols[place.column][1]
            if up:
                yield place, up[-1]
        if self.waste:
            yield WASTE, self.waste[-1]

    @staticmethod
    def _up(source: Tableau | Waste, card: int) -> Move:
        return Move(source=source, to=FOUNDATIONS[card // 13])

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
        return None if t is None else Move(source=WASTE, to=TABLEAU[t])

    def _king_waiting(self) -> bool:
        return (
            any(c % 13 == KING for c in self.stock)
            or any(c % 13 == KING for c in self.waste)
            or any(down and up and up[0] % 13 == KING for down, up in self.cols)
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
        def helps(card: int) -> bool:
            return self.fits_foundation(card) or self._target_for(card, -1) is not None

        return Draw() if any(helps(c) for c in self.future_waste_tops()) else None

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
            "no_moves": self.no_moves if self._status is PLAYING else False,
        }


def _col_move(source: int, target: int, count: int) -> Move:
    return Move(source=TABLEAU[source], to=TABLEAU[target], count=count)


class KlondikeRules(GameRules[KlondikeAction, KlondikeOptions]):
    name = "klondike"
    options_model = KlondikeOptions

    def parse_action(self, data: Any) -> KlondikeAction:
        """A typed action from its JSON form; places become klondike_core members here."""
        try:
            action: KlondikeAction = _ACTION.validator.validate_python(data)
            return action
        except ValidationError as exc:
            raise MalformedAction(
                "bad_action", f"bad Klondike action: {first_error(exc)}"
            ) from None

    def new_game(
        self, seed: bytes, options: KlondikeOptions, *, player_id: int, deal_attempt: int = 0
    ) -> KlondikeState:
        cols, stock = deal(seed, deal_attempt)
        return KlondikeState(cols=cols, stock=stock, draw=options.draw, passes=options.passes)

    def prepare_deal(self, seed: bytes, options: KlondikeOptions) -> PreparedDeal:
        """Attempt 0, unproven, unless the options ask for a guaranteed deal: then the first
        attempt klondike_search proves (CPU-heavy: run it in a thread), its solution replayed
        through this engine before it is returned."""
        if not options.guaranteed:
            return PreparedDeal()
        prepared = guaranteed_deal(seed, options)
        if prepared.solution is not None:
            end = self.replay(
                seed,
                options,
                prepared.solution,
                player_id=0,
                deal_attempt=prepared.deal_attempt,
            )
            if end.status is not WON:  # a bug in the search, never a player's fault
                raise AssertionError(
                    f"the search produced a non-winning line for attempt {prepared.deal_attempt}"
                )
        return prepared

    def hints_allowed(self, options: KlondikeOptions) -> bool:
        return options.hints


KLONDIKE = KlondikeRules()
