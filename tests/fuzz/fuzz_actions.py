"""Fuzz target: each game's action parsing and apply (server/games).

`RULES[game].parse_action` on any JSON value, then `apply` on a dealt or part-played
position. The promise (server/games/base.py): only MalformedAction escapes the parse and
only MalformedAction or IllegalAction the apply; a parsed action reads back from its
stored form (`action_data`, what records keep and hints send) as the same action; a new
position's view, progress and events are JSON. The first byte picks the position; the
rest is the value, as JSON (parsed the way the server parses a message, orjson) or, when
it is not JSON, as a string.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import orjson

from tests.fuzz.common import compact, fuzz, instrumented, vector

with instrumented(__name__ == "__main__"):
    from server.games import RULES, random_play
    from server.games.base import GameRules, GameState, IllegalAction, MalformedAction, action_data

SEED = bytes.fromhex("e4c537b6139465e60d1e3dc91d26a884e7b04b4d57558cedeb4b13dff5d68d97")


def _positions() -> list[tuple[GameRules[Any, Any], GameState[Any]]]:
    """Dealt and part-played positions of both games, under several options (v1.4: the
    Gaps family variants too)."""
    out = []
    for game, options in [
        ("gaps", {"redeals": 2}),
        ("gaps", {"redeals": 0}),
        ("gaps", {"variant": "montana"}),
        ("gaps", {"variant": "addiction", "redeals": 1}),
        ("gaps", {"variant": "free_parking"}),
        ("klondike", {"draw": 1}),
        ("klondike", {"draw": 3, "passes": 1}),
    ]:
        rules = RULES[game]
        opts = rules.parse_options(options)
        for steps in (0, 8, 40, 150):
            played = random_play.random_game(
                rules, SEED, random.Random(steps), opts, player_id=3, limit=steps
            )
            out.append((rules, list(played)[-1][0]))
    return out


POSITIONS = _positions()


def one_input(data: bytes) -> None:
    if not data:
        return
    rules, state = POSITIONS[data[0] % len(POSITIONS)]
    try:
        value: Any = orjson.loads(data[1:])
    except orjson.JSONDecodeError:
        value = data[1:].decode("utf-8", "replace")
    try:
        action = rules.parse_action(value)
    except MalformedAction:
        return
    stored = action_data(action)
    assert rules.parse_action(orjson.loads(orjson.dumps(stored))) == action, (value, stored)
    try:
        after, events = state.apply(action)
    except (MalformedAction, IllegalAction):
        return
    orjson.dumps([after.view(), after.progress_view(), events, after.status.value])
    assert isinstance(after.progress, int) and isinstance(after.score, int)


def seeds() -> Iterator[bytes]:
    """The vector game's moves, and every action kind of both games, on every position."""
    moves = [compact(a) for a in vector("gaps-game-1.json")["actions"][:6]]
    kinds = [
        b'{"kind":"redeal"}',
        b'{"kind":"resign"}',
        b'{"kind":"draw"}',
        b'{"kind":"auto"}',
        b'{"kind":"move","from":"waste","to":"f0"}',
        b'{"kind":"move","from":"t6","to":"t0","count":2}',
        b'{"kind":"move","from":"f1","to":"t3"}',
    ]
    for i in range(len(POSITIONS)):
        for action in moves + kinds:
            yield bytes([i]) + action


TOKENS = [
    "kind", "move", "card", "to", "from", "count", "redeal", "resign", "draw", "auto",
    "waste", "stock", "t0", "t6", "t7", "f0", "f3", "f4", "2S", "10H", "KD", "AC", "QH",
    "null", "true", "[0,0]", "[3,12]", "-1", "13", "1e400", "9" * 30,
]  # fmt: skip

if __name__ == "__main__":
    fuzz(one_input)
