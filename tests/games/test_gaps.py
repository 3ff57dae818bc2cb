"""Every rule of docs/RULES-GAPS.md, one test or more each."""

from __future__ import annotations

from random import Random

import pytest

from server.games import cards
from server.games.base import IllegalAction, MalformedAction, Status
from server.games.gaps import (
    GAP,
    GAPS,
    GapsMove,
    GapsOptions,
    GapsRedeal,
    GapsResign,
    GapsState,
    deal_grid,
    format_grid,
    parse_grid,
)

SEED = bytes(32)

SOLVED = [
    "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC --",
    "2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD --",
    "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH --",
    "2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS --",
]
# Blocked (every gap after a King), not won: 3S and 4S swapped in row 3.
BLOCKED = [*SOLVED[:3], "2S 4S 3S 5S 6S 7S 8S 9S TS JS QS KS --"]


def state(rows: list[str], redeals: int = 2, used: int = 0, player: int = 1) -> GapsState:
    return GapsState(
        seed=SEED, player_id=player, redeals=redeals, grid=parse_grid(rows), redeals_used=used
    )


def move(card: str, row: int, col: int) -> GapsMove:
    return GapsMove(card=card, to=(row, col))


def refused(s: GapsState, action, reason: str) -> IllegalAction:
    with pytest.raises(IllegalAction) as info:
        s.apply(action)
    assert info.value.reason == reason, info.value.message
    return info.value


# A playable position: gaps at (0,0), (0,5) after 5H, (0,6) after a gap, (1,12) after KD.
OPEN = [
    "-- 3C 4C 2D 5H -- -- 7H 8H 9H TH JH 6H",
    "2C 3D 4D 5D 6D 7D 8D 9D TD JD QD KD --",
    "2H 3H QH KH 4H 5C 6C 7C 8C 9C TC JC QC",
    "2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS KC",
]


def test_column_zero_gap_accepts_any_two() -> None:
    s = state(OPEN)
    for two in ("2C", "2D", "2H", "2S"):  # 2C, 2H, 2S stand in column 0 of other rows
        after, events = s.apply(move(two, 0, 0))
        assert parse_grid(format_grid(after.grid))[0] == cards.parse(two)
        assert events[0]["type"] == "moved" and events[0]["to"] == [0, 0]


def test_moving_a_two_from_column_zero_only_moves_the_gap() -> None:
    after, events = state(OPEN).apply(move("2C", 0, 0))
    assert after.grid[13] == GAP and events[0]["from"] == [1, 0]
    assert sorted(after.gaps) == [5, 6, 13, 25]


def test_column_zero_refuses_anything_but_a_two() -> None:
    err = refused(state(OPEN), move("KH", 0, 0), "wrong_card")  # FAQ: a King may not start a row
    assert "only a 2" in err.message


def test_gap_takes_same_suit_one_higher_from_anywhere() -> None:
    # Worked example: 5H left of the gap at (0,5); 6H stands elsewhere.
    after, events = state(OPEN).apply(move("6H", 0, 5))
    assert events[0] == {"type": "moved", "card": "6H", "from": [0, 12], "to": [0, 5]}
    assert after.grid[12] == GAP  # the old cell became a gap
    assert sum(1 for c in after.grid if c == GAP) == 4


def test_gap_refuses_other_cards_and_says_which_fits() -> None:
    err = refused(state(OPEN), move("6D", 0, 5), "wrong_card")
    assert "6H" in err.message
    refused(state(OPEN), move("7H", 0, 5), "wrong_card")


def test_card_may_come_out_of_a_sequence_and_right_neighbour_never_matters() -> None:
    rows = [
        "2C 3C 4C 5C 6C 7C 8C -- KD 9C TC JC QC",
        "2D 3D 4D 5D 6D 7D 8D 9D TD JD QD -- KC",
        *SOLVED[2:],
    ]
    after, events = state(rows).apply(move("9C", 0, 7))  # out of 9C TC JC QC; KD on the right
    assert events[0]["from"] == [0, 9] and after.grid[7] == cards.parse("9C")
    assert after.runs[0] == 8


def test_right_neighbour_gap_never_matters() -> None:
    s = state(OPEN)
    assert s.grid[6] == GAP  # right of the gap at (0,5)
    s.apply(move("6H", 0, 5))


def test_gap_after_king_is_dead_and_ace_never_follows_king() -> None:
    s = state(OPEN)
    err = refused(s, move("QC", 1, 12), "dead_gap")
    assert "KD" in err.message
    refused(s, move("AD", 1, 12), "ace_out")  # FAQ: no K–A wrap, aces are out


def test_gap_after_gap_is_dead() -> None:
    err = refused(state(OPEN), move("7H", 0, 6), "dead_gap")
    assert "another gap" in err.message


def test_target_must_be_a_gap() -> None:
    err = refused(state(OPEN), move("4C", 0, 1), "not_a_gap")
    assert "3C" in err.message


def test_aces_are_out_everywhere() -> None:
    refused(state(OPEN), move("AH", 0, 5), "ace_out")
    refused(state(OPEN), move("AH", 0, 0), "wrong_card")


def test_legal_moves_list_every_legal_move_and_only_those() -> None:
    s = state(OPEN)
    legal = {(cards.code(c), divmod(g, 13)) for c, g in s.legal_moves()}
    assert legal == {
        ("2C", (0, 0)),
        ("2D", (0, 0)),
        ("2H", (0, 0)),
        ("2S", (0, 0)),
        ("6H", (0, 5)),
    }
    for code in cards.CODES:
        for cell in s.gaps:
            action = move(code, *divmod(cell, 13))
            if (code, divmod(cell, 13)) in legal:
                s.apply(action)
            else:
                with pytest.raises(IllegalAction):
                    s.apply(action)


def test_blocked_when_every_gap_is_dead() -> None:
    assert state(BLOCKED).blocked
    assert not state(OPEN).blocked
    assert state(BLOCKED).legal_moves() == []


def test_redeal_only_when_blocked() -> None:
    err = refused(state(OPEN), GapsRedeal(), "not_blocked")
    assert "only when no move" in err.message


def test_redeal_counts_and_runs_out() -> None:
    s = state(BLOCKED, redeals=1)
    after, events = s.apply(GapsRedeal())
    assert after.redeals_used == 1 and {"type": "redealt", "redeal": 1} in events
    assert format_grid(after.grid)[3].startswith("2S --")
    blocked_again = state(BLOCKED, redeals=2, used=2)
    assert blocked_again.status is Status.LOST  # blocked with no redeal left: lost at once


def test_no_redeal_left_is_refused() -> None:
    s = state(BLOCKED, redeals=0)
    assert s.status is Status.LOST
    refused(s, GapsRedeal(), "game_over")
    playing = state(OPEN, redeals=1, used=1)
    refused(playing, GapsRedeal(), "no_redeal_left")


def test_lost_detected_after_the_move_that_blocks() -> None:
    rows = [*SOLVED[:3], "2S 4S 3S 5S 6S 7S 8S 9S TS JS QS -- KS"]
    s = state(rows, redeals=0)
    assert s.status is Status.PLAYING
    after, events = s.apply(move("KS", 3, 11))
    assert after.status is Status.LOST
    assert events[-1] == {"type": "ended", "status": "lost"}


def test_won_when_every_row_is_complete_and_game_ends() -> None:
    rows = [*SOLVED[:3], "2S 3S 4S 5S 6S 7S 8S 9S TS JS QS -- KS"]
    s = state(rows)
    after, events = s.apply(move("KS", 3, 11))
    assert after.status is Status.WON and after.cards_in_place == 48
    assert events[-1] == {"type": "ended", "status": "won"}
    assert after.score == 48 + 10  # win with no redeal
    refused(after, move("2S", 3, 12), "game_over")


def test_suit_order_between_rows_is_free() -> None:
    rows = [SOLVED[3], SOLVED[1], SOLVED[0], SOLVED[2]]
    assert state(rows).status is Status.WON


def test_resign_any_time_while_playing() -> None:
    after, events = state(OPEN).apply(GapsResign())
    assert after.status is Status.RESIGNED and events == [{"type": "resigned"}]
    refused(after, GapsResign(), "game_over")


def test_cards_in_place_counts_only_runs_from_column_zero() -> None:
    s = state(OPEN)
    # row 0: gap in column 0; row 1: 2C then 3D breaks; row 2: 2H 3H; row 3: 2S..KS.
    assert s.runs == (0, 1, 2, 12) and s.cards_in_place == 15


def test_score_formula() -> None:
    s = state(BLOCKED, redeals=2, used=1)
    assert s.score == 37 - 5
    won_after_redeal = state(SOLVED, used=2)
    assert won_after_redeal.status is Status.WON and won_after_redeal.score == 48 - 10


def test_options() -> None:
    assert GAPS.parse_options(None) == GapsOptions(redeals=2)
    for n in range(4):
        assert GAPS.parse_options({"redeals": n}).redeals == n
    for bad in ({"redeals": 4}, {"redeals": -1}, {"redeals": "2"}, {"other": 1}):
        with pytest.raises(ValueError):
            GAPS.parse_options(bad)


def test_redeals_zero_means_blocked_deal_is_lost() -> None:
    assert state(BLOCKED, redeals=0).status is Status.LOST


@pytest.mark.parametrize(
    ("data", "fragment"),
    [
        ({"kind": "move", "card": "ZZ", "to": [0, 0]}, "unknown card"),
        ({"kind": "move", "card": "6H", "to": [4, 0]}, "to.0"),
        ({"kind": "move", "card": "6H", "to": [0, 13]}, "to.1"),
        ({"kind": "move", "card": "6H", "to": [0]}, "to"),
        ({"kind": "move", "card": "6H", "to": ["0", 1]}, "to.0"),
        ({"kind": "move", "card": "6H"}, "to"),
        ({"kind": "fly"}, "kind"),
        ({"card": "6H"}, "kind"),
        ({"kind": "redeal", "extra": 1}, "extra"),
        ("move", ""),
    ],
)
def test_malformed_actions_get_clear_errors(data, fragment: str) -> None:
    with pytest.raises(MalformedAction) as info:
        GAPS.parse_action(data)
    assert fragment in info.value.message
    assert info.value.message.startswith("bad Gaps action")


def test_card_codes_normalised_in_actions() -> None:
    assert GAPS.parse_action({"kind": "move", "card": "10♥", "to": [0, 5]}).card == "TH"


def test_view_shows_grid_and_legal_moves() -> None:
    v = state(OPEN).view()
    assert v["grid"][0][0] is None and v["grid"][0][1] == "3C"
    assert v["redeals_left"] == 2 and v["blocked"] is False
    assert {"card": "6H", "to": [0, 5]} in v["legal"] and len(v["legal"]) == 5
    assert state(OPEN).progress_view() == {"cards_in_place": 15, "redeals_used": 0, "score": 15}


def test_game_1_vector_replays_to_the_same_end(gaps_game_1) -> None:
    seed = bytes.fromhex(gaps_game_1["seed"])
    s = GAPS.new_game(seed, GapsOptions(redeals=2), player_id=gaps_game_1["player_id"])
    layouts = [format_grid(s.grid)]
    for raw in gaps_game_1["actions"]:
        s, _ = s.apply(GAPS.parse_action(raw))
        if raw["kind"] == "redeal":
            layouts.append(format_grid(s.grid))
    assert layouts == gaps_game_1["layouts_after_each_deal"]
    assert format_grid(s.grid) == gaps_game_1["final_layout"]
    assert s.status.value == gaps_game_1["status"]
    assert s.cards_in_place == gaps_game_1["cards_in_place"]
    assert s.redeals_used == gaps_game_1["redeals_used"]


def test_a_viewed_games_next_views_match_a_fresh_view_of_each_position() -> None:
    """The view keeps its cell codes from move to move (two cells change): each view's
    grid is the one a fresh state of the same position gives, through moves and redeals."""
    rnd = Random(3)
    s = GapsState(seed=SEED, player_id=1, redeals=2, grid=deal_grid(SEED))
    viewed = 0
    while s.status is Status.PLAYING and viewed < 200:
        fresh = GapsState(
            seed=SEED, player_id=1, redeals=2, grid=s.grid, redeals_used=s.redeals_used
        )
        view, again = s.view(), fresh.view()
        assert view["grid"] == again["grid"] and view["blocked"] == again["blocked"]
        viewed += 1
        legal = s.view()["legal"]
        if not legal:
            s, _ = s.apply(GapsRedeal())
            continue
        pick = legal[rnd.randrange(len(legal))]
        s, _ = s.apply(move(pick["card"], *pick["to"]))
    assert viewed > 20
