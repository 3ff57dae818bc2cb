"""server.games.random_play: exactly the legal actions, deterministic random games."""

from __future__ import annotations

import random
from itertools import islice

import pytest

from server.games import cards, random_play
from server.games.base import ActionError, action_data
from server.games.gaps import COLS, GAPS, GapsMove, GapsOptions, GapsRedeal, GapsResign, GapsState
from server.games.klondike import KLONDIKE, Auto, Draw, KlondikeOptions, KlondikeState
from server.games.klondike import Move as KMove
from server.games.klondike_core import PLACES

SEEDS = [random.Random(i).randbytes(32) for i in range(4)]


def accepted(state, actions) -> list:
    out = []
    for action in actions:
        try:
            state.apply(action)
        except ActionError:
            continue
        out.append(action)
    return out


def every_gaps_action() -> list:
    """Every well-formed Gaps action but resign: each card into each cell, and redeal."""
    moves = [
        GapsMove(card=cards.code(c), to=(r, col))
        for c in cards.DECK
        for r in range(4)
        for col in range(COLS)
    ]
    return [*moves, GapsRedeal()]


def every_klondike_action() -> list:
    """Every well-formed Klondike action but resign, counts 1..13 everywhere."""
    moves = [KMove(source=s, to=t, count=n) for s in PLACES for t in PLACES for n in range(1, 14)]
    return [Draw(), Auto(), *moves]


def gaps_positions() -> list[GapsState]:
    """Every 8th position of two random games, and every blocked one."""
    out = []
    for i, seed in enumerate(SEEDS[:2]):
        game = random_play.random_gaps_game(seed, random.Random(i), GapsOptions(), limit=400)
        out.extend(s for k, (s, _) in enumerate(game) if k % 8 == 0 or s.blocked)
    return out


def klondike_positions(n: int = 40) -> list[KlondikeState]:
    out = []
    for i, seed in enumerate(SEEDS[:3]):
        opts = KlondikeOptions(draw=1 + 2 * (i % 2), passes=None if i < 2 else 1)
        game = random_play.random_klondike_game(seed, random.Random(i), opts, limit=200)
        out.extend(s for s, _ in islice(game, n))
    return out


def test_gaps_legal_actions_are_exactly_what_the_engine_accepts() -> None:
    everything = every_gaps_action()
    redeals = 0
    for state in gaps_positions():
        legal = random_play.gaps_legal_actions(state)
        assert set(legal) == set(accepted(state, everything))
        assert len(set(legal)) == len(legal)
        assert random_play.legal_actions(state) == legal
        redeals += legal == [GapsRedeal()]
    assert redeals  # blocked positions were among them


def test_klondike_legal_actions_are_exactly_what_the_engine_accepts() -> None:
    everything = every_klondike_action()
    counts = set()
    for state in klondike_positions():
        legal = random_play.klondike_legal_actions(state)
        assert legal, "a random game stops when nothing is legal"
        assert set(legal) == set(accepted(state, everything))
        assert len(set(legal)) == len(legal)
        assert set(legal) <= set(random_play.klondike_candidates(state))
        counts.update(a.count for a in legal if isinstance(a, KMove))
    assert max(counts) > 1  # multi-card moves were among them


def test_a_finished_game_has_no_legal_action() -> None:
    k = KLONDIKE.new_game(SEEDS[0], KlondikeOptions(), player_id=1)
    k_over, _ = k.apply(KLONDIKE.parse_action({"kind": "resign"}))
    g = GAPS.new_game(SEEDS[0], GapsOptions(), player_id=1)
    g_over, _ = g.apply(GapsResign())
    assert random_play.legal_actions(k_over) == [] == random_play.legal_actions(g_over)
    assert random_play.legal_actions(k) and random_play.legal_actions(g)
    with pytest.raises(TypeError):
        random_play.legal_actions(object())  # type: ignore[arg-type]


@pytest.mark.parametrize("rules", [GAPS, KLONDIKE], ids=["gaps", "klondike"])
def test_random_games_are_legal_deterministic_and_replay(rules) -> None:
    seed = SEEDS[1]
    options = rules.parse_options({})
    states = list(
        random_play.random_game(rules, seed, random.Random(5), options, player_id=3, limit=80)
    )
    assert states[0][1] is None and all(a is not None for _, a in states[1:])
    state = states[0][0]
    for after, action in states[1:]:
        assert action in random_play.legal_actions(state)
        state, _ = state.apply(action)
        assert state.progress == after.progress and state.status is after.status
    raw = random_play.random_actions(rules, seed, random.Random(5), options, player_id=3, limit=80)
    assert raw == [action_data(a) for _, a in states[1:]]
    assert raw == random_play.random_actions(rules, seed, random.Random(5), player_id=3, limit=80)
    assert raw != random_play.random_actions(rules, seed, random.Random(6), player_id=3, limit=80)
    end = rules.replay(seed, options, raw, player_id=3)
    assert end.view() == states[-1][0].view()


def test_klondike_hint_share() -> None:
    state = KLONDIKE.new_game(SEEDS[2], KlondikeOptions(), player_id=1)
    game = random_play.random_klondike_game(SEEDS[2], random.Random(1), hint_share=1.0, limit=30)
    for after, action in islice(game, 1, None):
        assert action == state.hint() or state.hint() is None
        state = after
