"""Klondike, the game: its rules object (options, dealing, guaranteed deals), and where
each part of docs/RULES-KLONDIKE.md lives.

    klondike_core      Table, Options: layout, deal, typed places, fit and safe rules
    klondike_actions   the actions' wire forms; places parsed once into typed members
    klondike_state     Actions, End, Score: the position and its apply()
    klondike_view      Hidden information, "No moves" warning, Hint
    klondike_search    Guaranteed deal: the search behind it
    klondike (here)    KlondikeRules: options, new_game, prepare_deal (replays each proof)

The names other code imports from this module are re-exported here.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from server.games.base import WON, GameRules, MalformedAction, PreparedDeal, first_error
from server.games.klondike_actions import (
    Auto,
    Draw,
    KlondikeAction,
    Move,
    Resign,
    validate_action,
)
from server.games.klondike_core import (
    COLUMNS,
    KING,
    Column,
    KlondikeOptions,
    Place,
    deal,
    fits_column,
    fits_foundation,
    is_safe,
)
from server.games.klondike_search import guaranteed_deal
from server.games.klondike_state import KlondikeState

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


class KlondikeRules(GameRules[KlondikeAction, KlondikeOptions]):
    name = "klondike"
    options_model = KlondikeOptions

    def parse_action(self, data: Any) -> KlondikeAction:
        """A typed action from its JSON form (klondike_actions: places become klondike_core
        members there); MalformedAction when it is not one."""
        try:
            return validate_action(data)
        except ValidationError as exc:
            raise MalformedAction(
                "bad_action", f"bad Klondike action: {first_error(exc)}"
            ) from None

    def new_game(
        self, seed: bytes, options: KlondikeOptions, *, player_id: int, deal_attempt: int = 0
    ) -> KlondikeState:
        cols, stock = deal(seed, deal_attempt)
        return KlondikeState(cols=cols, stock=stock, draw=options.draw, passes=options.passes)

    def searches(self, options: KlondikeOptions) -> bool:
        return options.guaranteed

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
