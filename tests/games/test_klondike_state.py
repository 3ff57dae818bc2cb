"""Every rule of play of docs/RULES-KLONDIKE.md (server/games/klondike_state.py):
the stock, the moves, auto, the end and the score."""

from __future__ import annotations

from server.games import cards
from server.games.base import Status
from server.games.klondike import Auto, Draw, Resign
from tests.support.klondike_positions import mv, pos, refused, up


# -- stock -------------------------------------------------------------------
def test_draw_one_and_three() -> None:
    s, ev = pos(stock="5C 4C 3C 2C").apply(Draw())  # 2C on top
    assert [cards.code(c) for c in s.waste] == ["2C"] and ev == [{"type": "drew", "cards": ["2C"]}]
    s3, _ = pos(stock="5C 4C 3C 2C", draw=3).apply(Draw())
    assert [cards.code(c) for c in s3.waste] == ["2C", "3C", "4C"]  # 4C on top, playable
    s3b, _ = s3.apply(Draw())
    assert [cards.code(c) for c in s3b.waste][-1] == "5C" and not s3b.stock  # fewer than 3
    assert s3b.moves == 2 and s3b.score == 0


def test_recycle_keeps_the_order_and_costs_100_in_draw_one() -> None:
    s = pos(stock="4C 3C 2C", score=130)
    for _ in range(3):
        s, _ = s.apply(Draw())
    s, ev = s.apply(Draw())  # recycle
    assert ev == [{"type": "recycled", "recycle": 1}] and not s.waste
    assert s.score == 30 and s.recycles_used == 1 and s.moves == 4
    s, _ = s.apply(Draw())
    assert cards.code(s.waste[-1]) == "2C"  # the first card out comes out first again
    broke, _ = pos(waste="2C", score=40).apply(Draw())
    assert broke.score == 0  # never below zero
    free, _ = pos(waste="2C", score=40, draw=3).apply(Draw())
    assert free.score == 40  # draw-3 recycles cost nothing


def test_pass_limits() -> None:
    refused(pos(waste="2C", passes=1), Draw(), "no_recycle_left")
    s = pos(waste="2C", passes=3)
    for _ in range(2):
        s, _ = s.apply(Draw())  # recycle
        s, _ = s.apply(Draw())  # draw it again
    assert s.recycles_used == 2 and s.recycles_left == 0
    refused(s, Draw(), "no_recycle_left")
    refused(pos(), Draw(), "nothing_to_draw")


# -- moves -------------------------------------------------------------------
def test_alternating_colours_one_lower() -> None:
    s = pos(cols=["|9S", "|8H", "|8C"], waste="8D")
    after, _ev = s.apply(mv("waste", "t0"))
    assert up(after, 0) == ["9S", "8D"] and after.score == 5 and after.moves == 1
    assert s.apply(mv("t1", "t0"))[0].score == 0  # between columns scores nothing
    refused(s, mv("t2", "t0"), "wrong_card")  # black on black
    refused(pos(cols=["|9S", "|7H"]), mv("t1", "t0"), "wrong_card")  # not one lower
    red_q = pos(cols=["|QH", "|JS", "|JD"])
    red_q.apply(mv("t1", "t0"))
    refused(red_q, mv("t2", "t0"), "wrong_card")


def test_empty_column_takes_only_a_king_with_its_run() -> None:
    s = pos(cols=["", "2C|KH QS JH", "|QD"])
    after, ev = s.apply(mv("t1", "t0", 3))
    assert up(after, 0) == ["KH", "QS", "JH"] and up(after, 1) == ["2C"]
    assert after.score == 5 and {"type": "flipped", "column": 1, "card": "2C"} in ev
    err = refused(s, mv("t2", "t0"), "wrong_card")
    assert "only a King" in err.message


def test_part_of_a_run_and_the_top_card_of_the_group_must_fit() -> None:
    refused(pos(cols=["|KH QS JH TS", "|JC"]), mv("t0", "t1", 2), "wrong_card")
    a2, _ = pos(cols=["|KH QS JH TS", "|QC"]).apply(mv("t0", "t1", 2))
    assert up(a2, 1) == ["QC", "JH", "TS"] and up(a2, 0) == ["KH", "QS"]
    refused(pos(cols=["|KH QS JH TS", "|QC"]), mv("t0", "t1", 3), "wrong_card")


def test_face_down_cards_never_move() -> None:
    s = pos(cols=["5C 6C|KH", ""])
    err = refused(s, mv("t0", "t1", 2), "face_down")
    assert "face-down" in err.message


def test_to_foundation_from_waste_and_column() -> None:
    s = pos(cols=["3S|AC"], waste="AD")
    a, _ = s.apply(mv("waste", "fD"))
    assert a.found == (0, 1, 0, 0) and a.score == 10
    b, _ev = a.apply(mv("t0", "fC"))
    assert b.found == (1, 1, 0, 0) and b.score == 25 and up(b, 0) == ["3S"]  # +10, flip +5
    assert b.moves == 2  # the flip is not a move
    refused(s, mv("t0", "fD"), "wrong_card")  # wrong suit
    refused(pos(waste="3D"), mv("waste", "fD"), "wrong_card")  # not the next rank
    refused(pos(cols=["|AC 2C"]), mv("t0", "fC", 2), "bad_count")


def test_foundation_back_to_a_column_costs_15() -> None:
    s = pos(cols=["|3D"], found={"C": 2}, score=10)
    after, _ = s.apply(mv("fC", "t0"))
    assert up(after, 0) == ["3D", "2C"] and after.found[0] == 1 and after.score == 0
    refused(s, mv("fC", "fD"), "bad_target")
    refused(s, mv("fH", "t0"), "empty_source")


def test_same_place_and_empty_sources() -> None:
    refused(pos(cols=["|KC"]), mv("t0", "t0"), "same_place")
    refused(pos(), mv("waste", "t0"), "empty_source")
    refused(pos(), mv("t3", "t0"), "empty_source")
    refused(pos(cols=["|KC"]), mv("t0", "waste"), "bad_target")


# -- auto --------------------------------------------------------------------
def test_auto_moves_safe_cards_in_pass_order() -> None:
    s = pos(cols=["|2C", "|AC", "|6H"], waste="AH", found={"C": 0})
    after, ev = s.apply(Auto())
    moved = [e["card"] for e in ev if e["type"] == "moved"]
    # pass 1: t1 AC, then the waste AH; pass 2: t0 2C; 6H is not safe (C at 2, S at 0)
    assert moved == ["AC", "AH", "2C"]
    assert after.moves == 3 and after.score == 30 and up(after, 2) == ["6H"]


def test_safe_rule_needs_both_other_colour_foundations() -> None:
    s = pos(cols=["|6H"], found={"H": 5, "C": 5, "S": 4})
    refused(s, Auto(), "no_safe_card")
    assert s.apply(mv("t0", "fH"))[0].found[2] == 6  # still playable by hand
    ok = pos(cols=["|6H"], found={"H": 5, "C": 5, "S": 5})
    assert ok.apply(Auto())[0].found[2] == 6


# -- end ---------------------------------------------------------------------
def test_win_and_resign() -> None:
    s = pos(cols=["|KS"], found={"C": 13, "D": 13, "H": 13, "S": 12})
    after, ev = s.apply(mv("t0", "fS"))
    assert after.status is Status.WON and ev[-1] == {"type": "ended", "status": "won"}
    refused(after, Draw(), "game_over")
    gone, _ = pos(stock="2C", score=55).apply(Resign())
    assert gone.status is Status.RESIGNED and gone.score == 55 and gone.moves == 0


def test_game_never_ends_by_itself() -> None:
    s = pos(cols=["|2H"])  # nothing to do at all
    assert s.status is Status.PLAYING and s.no_moves


def test_progress_counts_cards_home_and_resets_count_recycles() -> None:
    s = pos(cols=["|9H"], found={"C": 3, "H": 5}, recycles=2, score=70)
    assert s.progress == 8 and s.resets == 2
    assert s.progress_view() == {"cards_home": 8, "recycles_used": 2, "score": 70, "moves": 0}
    assert s.recycles_left is None  # unlimited passes
    assert pos(passes=3, recycles=1).recycles_left == 1


def test_a_move_leaves_the_state_it_was_applied_to_unchanged() -> None:
    s = pos(cols=["|9H"], waste="8S")
    after, _ = s.apply(mv("waste", "t0"))
    assert up(after, 0) == ["9H", "8S"] and not after.waste
    assert up(s, 0) == ["9H"] and [cards.code(c) for c in s.waste] == ["8S"]
