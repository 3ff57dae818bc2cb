"""Writes tests/data/gaps-redeal-rules-v1.json: the project's vectors for both redeal
rules (RULES-GAPS.md "Redeal variant (v1.3)"): for a few seeds and players, a random legal
game under `redeal` keep_runs and reshuffle_all (3 redeals allowed), every action, and
the layout after each deal and redeal.

    .venv/bin/python -m tests.games.make_gaps_redeal_vectors

Made by server/games/gaps.py; tests/games/test_gaps_redeal.py checks them against an
independent re-implementation, and tests/web/js/gaps_redeal.test.mjs against the
browser's rules.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from server import rng
from server.games.base import action_data
from server.games.gaps import GAPS, format_grid
from server.games.random_play import random_gaps_game

PATH = Path(__file__).resolve().parents[1] / "data" / "gaps-redeal-rules-v1.json"
SEEDS = (
    "00" * 32,
    "e4c537b6139465e60d1e3dc91d26a884e7b04b4d57558cedeb4b13dff5d68d97",
    "5e" * 32,
)
PLAYERS = (1, 42)
RULES = ("keep_runs", "reshuffle_all")


def case(seed_hex: str, player_id: int, rule: str) -> dict[str, Any]:
    """One game: random legal moves (a generator seeded from the case) and every redeal."""
    options = {"redeals": 3, "redeal": rule}
    seed = bytes.fromhex(seed_hex)
    rnd = random.Random(f"{seed_hex}/{player_id}/{rule}")
    actions: list[dict[str, Any]] = []
    layouts = []
    state = None
    for state, action in random_gaps_game(
        seed, rnd, GAPS.parse_options(options), player_id=player_id, limit=5000
    ):
        if action is not None:
            actions.append(action_data(action))
        if action is None or action.kind == "redeal":
            layouts.append(format_grid(state.grid))
    assert state is not None
    return {
        "seed": seed_hex,
        "commitment": rng.commitment(seed),
        "player_id": player_id,
        "options": options,
        "actions": actions,
        "layouts_after_each_deal": layouts,
        "final_layout": format_grid(state.grid),
        "status": state.status.value,
        "cards_in_place": state.progress,
        "redeals_used": state.resets,
    }


def vectors() -> dict[str, Any]:
    return {
        "spec": "samedeal-gaps-redeal-rules-v1",
        "about": (
            "Gaps games under both redeal rules (keep_runs, reshuffle_all), 3 redeals "
            "allowed: every action of a random legal game and the layout after the deal "
            "and after each redeal. Made by the project (server/games/gaps.py)."
        ),
        "cases": [case(s, p, r) for s in SEEDS for p in PLAYERS for r in RULES],
    }


if __name__ == "__main__":
    PATH.write_text(json.dumps(vectors(), indent=1) + "\n")
    print(f"wrote {PATH}")
