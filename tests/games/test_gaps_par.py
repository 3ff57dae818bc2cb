"""Par of a Gaps entry (server/games/gaps_par.py): never worse than the witness, kept at
the witness's best prefix when the search finds no better, and always replaying through
the engine to exactly what it claims, under every variant and redeal rule."""

from __future__ import annotations

import random
from typing import Any

import pytest

from server.games.base import action_data
from server.games.gaps import GAPS, GapsState, deal_grid
from server.games.gaps_par import Par, par_for
from server.games.gaps_search import SearchLimits, prove_win
from server.games.random_play import random_gaps_game
from tests.conftest import load_vector


def seed_of(i: int) -> bytes:
    return i.to_bytes(4, "big") * 8


QUICK_WIN = seed_of(4)  # attempt 0 is proven won within 100 positions
SMALL = SearchLimits(total=12_000, first=3_000, later=1_500, breadth=4)


def _witness(
    seed: bytes, player: int, rnd: random.Random, options: Any = None
) -> list[dict[str, Any]]:
    game = random_gaps_game(seed, rnd, options, player_id=player)
    return [action_data(a) for _, a in game if a]


def test_par_is_never_worse_than_the_witness_and_replays_under_the_player() -> None:
    rnd = random.Random(11)
    for i in range(3):
        seed = seed_of(20 + i)
        witness = _witness(seed, 4, rnd)
        own = GAPS.replay(seed, GAPS.parse_options({}), witness, player_id=4)
        par = par_for(seed, {}, 4, witness, SMALL)
        assert (par.progress, -par.resets) >= (own.progress, -own.resets)
        end = GAPS.replay(seed, GAPS.parse_options({}), par.line, player_id=4)
        assert (end.progress, end.resets) == (par.progress, par.resets)
        assert par.as_dict() == {"progress": par.progress, "resets": par.resets, "line": par.line}


def test_a_witness_better_than_the_search_is_kept_at_its_best_prefix() -> None:
    seed = QUICK_WIN
    win = prove_win(deal_grid(seed), 1_000)
    assert win is not None
    par = par_for(seed, {"redeals": 0}, 2, [*win, {"kind": "resign"}], SearchLimits(total=1))
    assert par == Par(48, 0, win)
    none = par_for(seed, {"redeals": 0}, 2, [], SearchLimits(total=1))
    assert none.line == [] and none.resets == 0


def test_par_refuses_an_illegal_witness() -> None:
    with pytest.raises(ValueError, match="witness action 1"):
        par_for(QUICK_WIN, {}, 2, [{"kind": "redeal"}], SMALL)


def test_par_under_reshuffle_all_is_found_from_the_fixed_redeal_layouts() -> None:
    seed = seed_of(8)
    par = par_for(seed, {"redeal": "reshuffle_all"}, 5, [], SMALL)
    end = GAPS.replay(seed, GAPS.parse_options({"redeal": "reshuffle_all"}), par.line, player_id=5)
    assert isinstance(end, GapsState) and (end.progress, end.resets) == (par.progress, par.resets)


@pytest.mark.parametrize("variant", ["montana", "addiction", "free_parking"])
def test_par_of_each_variant_is_never_worse_than_the_witness(variant: str) -> None:
    rnd = random.Random(11)
    options = GAPS.parse_options({"variant": variant})
    for i in range(2):
        seed = seed_of(30 + i)
        witness = _witness(seed, 4, rnd, options)
        own = GAPS.replay(seed, options, witness, player_id=4)
        par = par_for(seed, {"variant": variant}, 4, witness, SMALL)
        assert (par.progress, -par.resets) >= (own.progress, -own.resets)
        end = GAPS.replay(seed, options, par.line, player_id=4)
        assert (end.progress, end.resets) == (par.progress, par.resets)


def test_par_keeps_the_vectors_won_games() -> None:
    for game in load_vector("gaps-variants-v1.json")["won_games"]:
        seed = bytes.fromhex(game["seed"])
        par = par_for(
            seed, game["options"], game["player_id"], game["actions"], SearchLimits(total=1)
        )
        assert par.progress == 48
        assert par.resets == game["redeals_used"]
