"""The Gaps family's variants (RULES-GAPS.md "Family variants (v1.4)") against every part
of the contract's vectors (tests/data/gaps-variants-v1.json): deals, legal moves, moves,
redeals of players 1 and 42, whole games, positions, won games and the option sets; then
the typed refusals each variant's rule gives."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.games import cards
from server.games.base import IllegalAction, Status
from server.games.gaps import (
    GAP,
    GAPS,
    TWOS,
    VARIANTS,
    GapsMove,
    GapsOptions,
    GapsRedeal,
    GapsState,
    format_grid,
    parse_grid,
    redeal_grid,
)
from server.games.klondike import KLONDIKE
from server.games.random_play import random_gaps_game
from tests.conftest import load_vector

VECTORS: dict[str, Any] = load_vector("gaps-variants-v1.json")
CASES: list[dict[str, Any]] = VECTORS["cases"]
GAMES = [g for c in CASES for g in c["games"]]
MoveSet = set[tuple[int, int]]


def _moves(state: GapsState) -> MoveSet:
    return set(state.legal_moves())


def _vector_moves(moves: list[dict[str, Any]]) -> MoveSet:
    found = {(cards.parse(m["card"]), m["to"][0] * 13 + m["to"][1]) for m in moves}
    assert len(found) == len(moves)  # one legal move per (card, cell)
    return found


def _case_id(case: dict[str, Any]) -> str:
    return f"{case['variant']}-{case['options']['redeal']}-{case['seed'][:8]}"


def test_the_vectors_cover_every_variant_and_part() -> None:
    assert (
        set(VECTORS["variants"])
        == set(VARIANTS)
        == {
            "gaps",
            "montana",
            "addiction",
            "free_parking",
        }
    )
    assert {c["variant"] for c in CASES} == {"montana", "addiction", "free_parking"}
    assert {g["status"] for g in GAMES + VECTORS["won_games"]} == {"won", "lost", "resigned"}
    assert {p["player_id"] for c in CASES for p in c["redeals_of_initial"]} == {1, 42}
    assert len(VECTORS["won_games"]) == 3


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_each_variant_declares_its_default_redeals(name: str) -> None:
    declared = VECTORS["variants"][name]
    assert VARIANTS[name].default_redeals == declared["default_redeals"]
    assert GAPS.parse_options({"variant": name}).redeals == declared["default_redeals"]


# -- deals, moves, redeals --------------------------------------------------------------
@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_deal_and_its_legal_moves(case: dict[str, Any]) -> None:
    options = GAPS.parse_options(case["options"])
    state = GAPS.new_game(bytes.fromhex(case["seed"]), options, player_id=1)
    assert format_grid(state.grid) == case["initial_layout"]
    assert _moves(state) == _vector_moves(case["initial_legal"])
    assert state.blocked is case["initial_blocked"]
    assert state.progress == case["initial_cards_in_place"]


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_moves_from_the_deal(case: dict[str, Any]) -> None:
    options = GAPS.parse_options(case["options"])
    state = GAPS.new_game(bytes.fromhex(case["seed"]), options, player_id=1)
    assert case["moves"]
    for step in case["moves"]:
        state, events = state.apply(GAPS.parse_action(step["action"]))
        assert events[0]["type"] == "moved"
        assert format_grid(state.grid) == step["layout_after"]
        assert _moves(state) == _vector_moves(step["legal_after"])
        assert state.blocked is step["blocked_after"]
        assert state.progress_view() == step["progress_after"]
        assert state.status.value == step["status_after"]


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_redeals_of_the_initial_layout(case: dict[str, Any]) -> None:
    options = GAPS.parse_options(case["options"])
    seed, initial = bytes.fromhex(case["seed"]), parse_grid(case["initial_layout"])
    for redeal in case["redeals_of_initial"]:
        grid = redeal_grid(
            initial, seed, redeal["player_id"], redeal["k"], options.redeal, options.rules
        )
        assert format_grid(grid) == redeal["layout"], (redeal["player_id"], redeal["k"])


# -- whole games -------------------------------------------------------------------------
def _play(game: dict[str, Any]) -> tuple[GapsState, list[list[str]]]:
    options = GAPS.parse_options(game["options"])
    state = GAPS.new_game(bytes.fromhex(game["seed"]), options, player_id=game["player_id"])
    layouts = [format_grid(state.grid)]
    for raw in game["actions"]:
        state, events = state.apply(GAPS.parse_action(raw))
        if raw["kind"] == "redeal":
            assert events[0] == {"type": "redealt", "redeal": len(layouts)}
            layouts.append(format_grid(state.grid))
    return state, layouts


def _game_id(game: dict[str, Any]) -> str:
    return f"{game['options']['variant']}-{game['status']}-p{game['player_id']}-{game['seed'][:6]}"


@pytest.mark.parametrize("game", GAMES + VECTORS["won_games"], ids=_game_id)
def test_whole_games_replay_to_their_end(game: dict[str, Any]) -> None:
    state, layouts = _play(game)
    assert layouts == game["layouts_after_each_deal"]
    assert format_grid(state.grid) == game["final_layout"]
    assert (state.status.value, state.progress, state.resets, state.score) == (
        game["status"],
        game["cards_in_place"],
        game["redeals_used"],
        game["score"],
    )


def test_the_won_games_win_one_per_new_variant() -> None:
    won = VECTORS["won_games"]
    assert {g["options"]["variant"] for g in won} == {"montana", "addiction", "free_parking"}
    for game in won:
        state, _ = _play(game)
        assert state.status.value == "won" and state.progress == 48


@pytest.mark.parametrize("game", [g for g in GAMES if g["status"] == "lost"], ids=_game_id)
def test_a_lost_game_ended_by_the_server_at_once(game: dict[str, Any]) -> None:
    state, _ = _play(game)
    assert state.blocked and state.resets == GAPS.parse_options(game["options"]).redeals
    with pytest.raises(IllegalAction) as info:
        state.apply(GapsRedeal())
    assert info.value.reason == "game_over"


# -- positions -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "position", VECTORS["positions"], ids=lambda p: f"{p['variant']}: {p['why'][:40]}"
)
def test_positions(position: dict[str, Any]) -> None:
    state = GapsState(
        seed=bytes(32),
        player_id=1,
        redeals=1,
        grid=parse_grid(position["layout"]),
        variant=VARIANTS[position["variant"]],
    )
    assert _moves(state) == _vector_moves(position["legal"])
    assert state.blocked is position["blocked"]
    assert state.progress == position["cards_in_place"]


# -- options -------------------------------------------------------------------------------
@pytest.mark.parametrize("accepted", VECTORS["options"]["accepted"], ids=str)
def test_accepted_option_sets_mean_their_effective_options(accepted: dict[str, Any]) -> None:
    options = GAPS.parse_options(accepted["options"])
    effective = accepted["effective"]
    assert {**options.model_dump(), "variant": options.variant} == effective
    served = options.model_dump()
    assert ("variant" in served) is (effective["variant"] != "gaps")
    assert GAPS.parse_options(served) == options  # what records carry means the same


@pytest.mark.parametrize("refused", VECTORS["options"]["refused"], ids=str)
def test_refused_option_sets_get_one_line_naming_the_option(refused: dict[str, Any]) -> None:
    rules = GAPS if refused["game"] == "gaps" else KLONDIKE
    with pytest.raises(ValueError) as info:
        rules.parse_options(refused["options"])
    message = str(info.value)
    assert "\n" not in message
    named = next(k for k in ("winnable", "redeals", "redeal", "variant") if k in refused["options"])
    assert message.startswith(f"bad {refused['game']} options: {named}: "), message


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"variant": "Montana"}, "unknown variant 'Montana' (names are exact lowercase)"),
        ({"variant": "spaces"}, "(Spaces is redeal: reshuffle_all)"),
        ({"variant": None}, "one of the strings gaps, montana, addiction, free_parking, not null"),
        ({"variant": "montana", "redeal": "reshuffle_all"}, "gather its pre-placed 2s"),
        ({"variant": "addiction", "winnable": True}, "winnable: true needs variant gaps"),
    ],
)
def test_refusals_say_which_rule_refused(options: dict[str, Any], words: str) -> None:
    with pytest.raises(ValueError) as info:
        GAPS.parse_options(options)
    assert words in str(info.value)


def test_klondike_refuses_variant_naming_its_own_options() -> None:
    with pytest.raises(ValueError) as info:
        KLONDIKE.parse_options({"variant": "gaps"})
    assert str(info.value) == (
        "bad klondike options: variant: not a klondike option; "
        "allowed: draw, passes, guaranteed, hints"
    )


def test_plain_gaps_options_serialise_as_before_v1_4() -> None:
    assert GapsOptions().model_dump() == {"redeals": 2, "redeal": "keep_runs", "winnable": False}
    assert GAPS.parse_options({"variant": "gaps"}) == GapsOptions()


# -- the variants' rules, refused moves ------------------------------------------------------
def _state(variant: str, rows: list[str]) -> GapsState:
    return GapsState(
        seed=bytes(32), player_id=1, redeals=2, grid=parse_grid(rows), variant=VARIANTS[variant]
    )


def _move(card: str, row: int, col: int) -> GapsMove:
    return GapsMove(card=card, to=(row, col))


MONTANA = VECTORS["cases"][0]["initial_layout"]


def test_montana_keeps_its_2s_fixed_and_says_so() -> None:
    state = _state("montana", MONTANA)
    assert [format_grid(state.grid)[r][:2] for r in range(4)] == ["2C", "2D", "2H", "2S"]
    with pytest.raises(IllegalAction) as info:
        state.apply(_move("2C", 0, 2))
    assert info.value.reason == "fixed_two" and "montana" in info.value.message


FREE_PARKING = [
    "2H 4H 9H TC 3H 2D 3D KD 4D TH JH QH KH",
    "-- QD JD 8C 3S 9S 5D 6D JC 8S JS TS 6H",
    "5C KC TD 9C 7H 8H 5H 3C 4C -- -- 2S 4S",
    "2C 7D 8D 9D 6C 7C QC 5S 6S 7S QS KS --",
]


def test_free_parking_refusals_name_both_neighbours() -> None:
    state = _state("free_parking", FREE_PARKING)
    with pytest.raises(IllegalAction) as wrong:
        state.apply(_move("6C", 2, 9))
    assert wrong.value.reason == "wrong_card" and "takes only 5C" in wrong.value.message
    with pytest.raises(IllegalAction) as dead:
        state.apply(_move("3S", 2, 10))
    assert dead.value.reason == "dead_gap"
    assert (
        dead.value.message == "gap [2, 10] is dead: left of it is another gap and right of it is 2S"
    )
    with pytest.raises(IllegalAction) as last:
        state.apply(_move("3S", 3, 12))
    assert last.value.message.endswith("left of it is KS and it has no right neighbour")


def test_free_parking_takes_the_card_below_its_right_neighbour() -> None:
    rows = VECTORS["positions"][27]["layout"]  # gap [0, 2] after KC, left of 4D
    assert "dead in gaps" in VECTORS["positions"][27]["why"]
    with pytest.raises(IllegalAction) as plain:
        _state("gaps", rows).apply(_move("3D", 0, 2))
    assert plain.value.reason == "dead_gap"
    after, events = _state("free_parking", rows).apply(_move("3D", 0, 2))
    assert events[0] == {"type": "moved", "card": "3D", "from": [2, 4], "to": [0, 2]}
    assert format_grid(after.grid)[0].startswith("6C KC 3D 4D")


def test_free_parking_lets_a_2_enter_left_of_its_3() -> None:
    rows = VECTORS["positions"][28]["layout"]
    after, _ = _state("free_parking", rows).apply(_move("2S", 2, 8))  # left of 3S
    assert format_grid(after.grid)[2].split()[8:10] == ["2S", "3S"]


# -- properties of random play under each variant ---------------------------------------------
@settings(max_examples=15, deadline=None)
@given(
    seed=st.binary(min_size=32, max_size=32),
    choice=st.integers(0, 2**32),
    variant=st.sampled_from(["montana", "addiction", "free_parking"]),
    rule=st.sampled_from(["keep_runs", "reshuffle_all"]),
)
def test_random_play_under_a_variant_keeps_its_invariants(
    seed: bytes, choice: int, variant: str, rule: str
) -> None:
    if variant == "montana" and rule == "reshuffle_all":
        rule = "keep_runs"  # refused (tested above)
    options = GAPS.parse_options({"variant": variant, "redeal": rule, "redeals": 3})
    full = sorted(c for c in cards.DECK if cards.rank(c) != cards.ACE)
    rnd = random.Random(choice)
    for state, action in random_gaps_game(seed, rnd, options, player_id=5, limit=120):
        assert sorted(c for c in state.grid if c != GAP) == full and len(state.gaps) == 4
        if variant == "montana":
            assert [state.grid[r * 13] for r in range(4)] == list(TWOS)  # never move
        if isinstance(action, GapsRedeal) and variant != "addiction":
            assert all(state.grid[r * 13 + run] == GAP for r, run in enumerate(state.runs))
        if state.status is Status.PLAYING:
            _every_move_to_a_gap_is_legal_exactly_when_listed(state)


def _every_move_to_a_gap_is_legal_exactly_when_listed(state: GapsState) -> None:
    legal = set(state.legal_moves())
    assert bool(legal) is not state.blocked
    for gap in state.gaps:
        for card in (c for c in cards.DECK if cards.rank(c) != cards.ACE):
            move = GapsMove(card=cards.code(card), to=(gap // 13, gap % 13))
            try:
                state.apply(move)
            except IllegalAction:
                assert (card, gap) not in legal
            else:
                assert (card, gap) in legal
