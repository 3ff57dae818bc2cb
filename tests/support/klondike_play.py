"""Random legal Klondike play for tests: thin wrappers over server.games.random_play,
answering in the JSON form (raw dicts) these tests send and store."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from server.games import cards, klondike_core, random_play
from server.games.base import action_data
from server.games.klondike import KLONDIKE, KlondikeAction, KlondikeOptions, KlondikeState

PLACES = list(klondike_core.PLACES)  # the protocol texts: waste, t0..t6, fC..fS


def candidate_actions(state: KlondikeState) -> list[KlondikeAction]:
    """A superset of the legal actions, as typed actions (the engine filters)."""
    return random_play.klondike_candidates(state)


def legal_actions(state: KlondikeState) -> list[dict[str, Any]]:
    """Every legal action (resign left out), in JSON form."""
    return [action_data(a) for a in random_play.klondike_legal_actions(state)]


def random_game(
    seed: bytes, rnd: random.Random, options: KlondikeOptions, limit: int = 150
) -> Iterator[tuple[KlondikeState, dict[str, Any] | None]]:
    """Yield (state, raw action) pairs of a random legal game; hints half of the time."""
    for state, action in random_play.random_klondike_game(seed, rnd, options, limit=limit):
        yield state, None if action is None else action_data(action)


def hidden_codes(seed: bytes, opts: KlondikeOptions, attempt: int, actions: list) -> set[str]:
    state = KLONDIKE.replay(seed, opts, actions, player_id=0, deal_attempt=attempt)
    return {cards.code(c) for d, _ in state.cols for c in d} | {cards.code(c) for c in state.stock}
