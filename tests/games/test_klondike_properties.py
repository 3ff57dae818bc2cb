"""Random Klondike games: cards conserved, nothing hidden ever shown, replay deterministic."""

from __future__ import annotations

import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from server.games import cards
from server.games.klondike import KLONDIKE, KlondikeOptions
from tests.support.klondike_play import random_game

options = st.builds(
    KlondikeOptions, draw=st.sampled_from([1, 3]), passes=st.sampled_from([None, 1, 2, 3])
)


@settings(max_examples=25, deadline=None)
@given(seed=st.binary(min_size=32, max_size=32), choice=st.integers(0, 2**32), opts=options)
def test_random_games_conserve_cards_and_hide_what_is_face_down(seed, choice, opts) -> None:
    raws = []
    for state, raw in random_game(seed, random.Random(choice), opts, limit=60):
        if raw is not None:
            raws.append(raw)
        all_cards = (
            [c for d, u in state.cols for c in d + u] + list(state.stock) + list(state.waste)
        )
        home = [s * 13 + r for s in range(4) for r in range(state.found[s])]
        assert sorted(all_cards + home) == list(range(52))
        shown = json.dumps([state.view(), state.progress_view()])
        hidden = [c for d, _ in state.cols for c in d] + list(state.stock)
        assert not any(f'"{cards.code(c)}"' in shown for c in hidden)
        assert state.score >= 0 and state.moves >= 0
    replayed = KLONDIKE.replay(seed, opts, raws, player_id=1)
    assert replayed.cols == state.cols and replayed.score == state.score
    assert replayed.moves == state.moves
