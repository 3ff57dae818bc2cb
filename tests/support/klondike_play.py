"""Random legal Klondike play from the engine's own suggestions and legal moves."""

from __future__ import annotations

import random
from typing import Any

from server.games import cards
from server.games.base import ActionError, Status
from server.games.klondike import KLONDIKE, Auto, Draw, KlondikeOptions, KlondikeState, Move

PLACES = ["waste", *(f"t{i}" for i in range(7)), "fC", "fD", "fH", "fS"]


def candidate_actions(state: KlondikeState) -> list[Any]:
    """A superset of the legal actions, as typed actions (the engine filters)."""
    out: list[Any] = [Draw(), Auto()]
    for src in PLACES:
        for dst in PLACES[1:]:
            if src == dst:
                continue
            both_columns = src[0] == "t" and dst[0] == "t"
            counts = range(1, len(state.cols[int(src[1])][1]) + 1) if both_columns else [1]
            out.extend(
                Move.model_construct(kind="move", source=src, to=dst, count=n) for n in counts
            )
    return out


def legal_actions(state: KlondikeState) -> list[dict[str, Any]]:
    legal = []
    for action in candidate_actions(state):
        try:
            state.apply(action)
        except ActionError:
            continue
        legal.append(action.model_dump(mode="json", by_alias=True))
    return legal


def random_game(seed: bytes, rnd: random.Random, options: KlondikeOptions, limit: int = 150):
    """Yield (state, raw action) pairs of a random legal game; hints half of the time."""
    state = KLONDIKE.new_game(seed, options, player_id=1)
    yield state, None
    for _ in range(limit):
        if state.status is not Status.PLAYING:
            return
        hint = state.hint()
        if hint is not None and rnd.random() < 0.5:
            raw = hint.model_dump(mode="json", by_alias=True)
        else:
            legal = legal_actions(state)
            if not legal:
                return
            raw = rnd.choice(legal)
        state, _ = state.apply(KLONDIKE.parse_action(raw))
        yield state, raw


def hidden_codes(seed: bytes, opts: KlondikeOptions, attempt: int, actions: list) -> set[str]:
    state = KLONDIKE.replay(seed, opts, actions, player_id=0, deal_attempt=attempt)
    return {cards.code(c) for d, _ in state.cols for c in d} | {cards.code(c) for c in state.stock}
