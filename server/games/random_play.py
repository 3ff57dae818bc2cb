"""Random legal play: every legal action of a position, and seeded random games.

For benchmarks, property tests and demos. Everything is deterministic given the
`random.Random` passed in: the same seed and generator state give the same game.
"Legal" means what the engine itself accepts (`state.apply` does not refuse it);
resigning, always accepted while a game is on, is left out everywhere.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel

from server.games import cards
from server.games.base import ActionError, GameRules, GameState, Status, action_data
from server.games.gaps import COLS, GAPS, GapsMove, GapsOptions, GapsRedeal, GapsState
from server.games.klondike import (
    KLONDIKE,
    Auto,
    Draw,
    KlondikeAction,
    KlondikeOptions,
    KlondikeState,
    Move,
)
from server.games.klondike_core import PLACES, Place, Tableau, Waste

GapsPlay = GapsMove | GapsRedeal
"""A Gaps action other than resign."""

_DRAW, _AUTO = Draw(), Auto()
_MOVES: dict[tuple[Place, Place, int], Move] = {
    (source, to, count): Move(source=source, to=to, count=count)
    for source in PLACES.values()
    for to in PLACES.values()
    if to is not source and not isinstance(to, Waste)
    for count in range(1, 14 if isinstance(source, Tableau) and isinstance(to, Tableau) else 2)
}
"""Every move worth trying, built once: (from, to, count) to the typed action."""


# -- Gaps ---------------------------------------------------------------------
def gaps_legal_actions(state: GapsState) -> list[GapsPlay]:
    """Every legal Gaps action: the legal moves (gaps in cell order, 2s in deck order),
    or a redeal when none is left and a redeal is."""
    if state.status is not Status.PLAYING:
        return []
    moves: list[GapsPlay] = [
        GapsMove(card=cards.code(card), to=divmod(cell, COLS)) for card, cell in state.legal_moves()
    ]
    if not moves and state.redeals_used < state.redeals:
        return [GapsRedeal()]
    return moves


def random_gaps_game(
    seed: bytes,
    rnd: random.Random,
    options: GapsOptions | None = None,
    *,
    player_id: int = 7,
    limit: int = 300,
) -> Iterator[tuple[GapsState, GapsPlay | None]]:
    """Every state of a random legal Gaps game (a uniform choice among the legal moves,
    a redeal when blocked), with the action that led to it (None for the deal); at most
    `limit` actions."""
    state = GAPS.new_game(seed, options or GapsOptions(), player_id=player_id)
    yield state, None
    for _ in range(limit):
        if state.status is not Status.PLAYING:
            return
        legal = state.legal_moves()
        action: GapsPlay
        if legal:
            card, cell = rnd.choice(legal)
            action = GapsMove(card=cards.code(card), to=divmod(cell, COLS))
        else:
            action = GapsRedeal()
        state, _ = state.apply(action)
        yield state, action


# -- Klondike -----------------------------------------------------------------
def klondike_candidates(state: KlondikeState) -> list[KlondikeAction]:
    """A superset of the legal Klondike actions, in a fixed order: draw, auto, then moves
    by source and target in protocol order (waste, t0..t6, fC..fS), counts rising.
    Sources with no card are skipped: every move from them is refused."""
    out: list[KlondikeAction] = [_DRAW, _AUTO]
    for source in PLACES.values():
        if isinstance(source, Waste):
            if not state.waste:
                continue
            up = 1
        elif isinstance(source, Tableau):
            up = min(len(state.cols[source.column][1]), 13)
            if not up:
                continue
        elif not state.found[source.suit]:
            continue
        else:
            up = 1
        for to in PLACES.values():
            if to is source or isinstance(to, Waste):
                continue
            most = up if isinstance(source, Tableau) and isinstance(to, Tableau) else 1
            out.extend(_MOVES[source, to, n] for n in range(1, most + 1))
    return out


def klondike_legal_actions(state: KlondikeState) -> list[KlondikeAction]:
    """Every legal Klondike action (draw, auto, moves), in klondike_candidates' order."""
    if state.status is not Status.PLAYING:
        return []
    legal = []
    for action in klondike_candidates(state):
        try:
            state.apply(action)
        except ActionError:
            continue
        legal.append(action)
    return legal


def random_klondike_game(
    seed: bytes,
    rnd: random.Random,
    options: KlondikeOptions | None = None,
    *,
    player_id: int = 1,
    limit: int = 150,
    hint_share: float = 0.5,
) -> Iterator[tuple[KlondikeState, KlondikeAction | None]]:
    """Every state of a random legal Klondike game, with the action that led to it (None
    for the deal): the rules' hint `hint_share` of the time when there is one, otherwise
    a uniform choice among the legal actions; it stops after `limit` actions or when no
    action is legal."""
    state = KLONDIKE.new_game(seed, options or KlondikeOptions(), player_id=player_id)
    yield state, None
    for _ in range(limit):
        if state.status is not Status.PLAYING:
            return
        hint = state.hint()
        action: KlondikeAction
        if hint is not None and rnd.random() < hint_share:
            action = hint
        else:
            legal = klondike_legal_actions(state)
            if not legal:
                return
            action = rnd.choice(legal)
        state, _ = state.apply(action)
        yield state, action


# -- either game --------------------------------------------------------------
def legal_actions(state: GameState[Any]) -> list[BaseModel]:
    """Every legal action of a Gaps or Klondike position (resign left out)."""
    if isinstance(state, GapsState):
        return list(gaps_legal_actions(state))
    if isinstance(state, KlondikeState):
        return list(klondike_legal_actions(state))
    raise TypeError(f"no random play for {type(state).__name__}")


def random_game(
    rules: GameRules[Any, Any],
    seed: bytes,
    rnd: random.Random,
    options: BaseModel | None = None,
    *,
    player_id: int,
    limit: int,
) -> Iterator[tuple[GameState[Any], BaseModel | None]]:
    """random_gaps_game or random_klondike_game, by the rules' name."""
    if rules.name == GAPS.name:
        gaps_options = options if isinstance(options, GapsOptions) else None
        yield from random_gaps_game(seed, rnd, gaps_options, player_id=player_id, limit=limit)
    elif rules.name == KLONDIKE.name:
        k_options = options if isinstance(options, KlondikeOptions) else None
        yield from random_klondike_game(seed, rnd, k_options, player_id=player_id, limit=limit)
    else:
        raise ValueError(f"no random play for {rules.name!r}")


def random_actions(
    rules: GameRules[Any, Any],
    seed: bytes,
    rnd: random.Random,
    options: BaseModel | None = None,
    *,
    player_id: int,
    limit: int,
) -> list[dict[str, Any]]:
    """The actions of random_game in their JSON form (what records store)."""
    return [
        action_data(action)
        for _, action in random_game(rules, seed, rnd, options, player_id=player_id, limit=limit)
        if action is not None
    ]


__all__ = [
    "GapsPlay",
    "gaps_legal_actions",
    "klondike_candidates",
    "klondike_legal_actions",
    "legal_actions",
    "random_actions",
    "random_game",
    "random_gaps_game",
    "random_klondike_game",
]
