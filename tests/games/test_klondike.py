"""Every rule of docs/RULES-KLONDIKE.md: moves, stock, auto, score, no-moves, hint, view."""

from __future__ import annotations

import pytest

from server.games import cards
from server.games.base import IllegalAction, MalformedAction, Status
from server.games.klondike import (
    KLONDIKE,
    Auto,
    Draw,
    KlondikeOptions,
    KlondikeState,
    Move,
    Resign,
    deal,
)


def cs(text: str) -> tuple[int, ...]:
    return tuple(cards.parse(t) for t in text.split())


def pos(cols=(), stock="", waste="", found=None, draw=1, passes=None, score=0, recycles=0):
    """Columns as 'down | up' strings (bottom first); stock and waste top last."""
    parsed = []
    for text in list(cols) + [""] * (7 - len(cols)):
        down, _, up = text.partition("|")
        parsed.append((cs(down), cs(up)))
    f = found or {}
    return KlondikeState(
        cols=tuple(parsed),
        stock=cs(stock),
        waste=cs(waste),
        found=tuple(f.get(s, 0) for s in "CDHS"),
        draw=draw,
        passes=passes,
        score=score,
        recycles_used=recycles,
    )


def mv(src: str, dst: str, count: int = 1) -> Move:
    return Move(source=src, to=dst, count=count)


def refused(state, action, reason: str) -> IllegalAction:
    with pytest.raises(IllegalAction) as info:
        state.apply(action)
    assert info.value.reason == reason, info.value.message
    return info.value


def up(state, col: int) -> list[str]:
    return [cards.code(c) for c in state.cols[col][1]]


# -- deal --------------------------------------------------------------------
def test_deal_vectors(drbg_vectors) -> None:
    for case in drbg_vectors["cases"]:
        seed = bytes.fromhex(case["seed"])
        for attempt in (0, 1):
            cols, stock = deal(seed, attempt)
            assert [[cards.code(c) for c in d + u] for d, u in cols] == case[
                f"klondike_attempt{attempt}_tableau_bottom_to_top"
            ]
            assert [cards.code(c) for c in reversed(stock)] == case[
                f"klondike_attempt{attempt}_stock_top_first"
            ]
            assert all(len(u) == 1 and len(d) == i for i, (d, u) in enumerate(cols))


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


# -- no moves and hint ------------------------------------------------------
@pytest.mark.parametrize(
    ("state", "hint"),
    [
        # 1. safe up (an ace) beats everything
        (pos(cols=["4C|9H", "|AS"], waste="8S"), mv("t1", "fS")),
        # 2. whole run uncovering, the column with most face-down cards first
        (pos(cols=["2C|8S", "3C 4C|8C", "|9H"]), mv("t1", "t2")),
        # 3. any other move up (not safe: 3H with black foundations at 0)
        (pos(cols=["|3H", "|KS"], found={"H": 2}), mv("t0", "fH")),
        # 4. the waste's card to a column
        (pos(cols=["|9H"], waste="8S"), mv("waste", "t0")),
        # 5. empty a column when a King waits (here in the stock)
        (pos(cols=["|8S", "|9H", "|2D"], stock="KC"), mv("t0", "t1")),
        # 6. part of a run to free a card that goes up
        (pos(cols=["|2D 9S 8H", "|TH"], found={"D": 1}, waste="5S"), mv("t0", "t1", 2)),
        # 7. drawing helps: a card in the stock fits a column
        (pos(cols=["|9H"], stock="8C 2S"), Draw()),
    ],
)
def test_hint_priorities(state, hint) -> None:
    assert state.hint() == hint
    assert state.no_moves is False


def test_hint_scan_order_columns_then_waste_targets_foundations_then_columns() -> None:
    s = pos(cols=["|5D", "|AC"], waste="AD")
    assert s.hint() == mv("t1", "fC")  # column sources before the waste
    w = pos(cols=["|9H", "", "|9D"], waste="8S")
    assert w.hint() == mv("waste", "t0")  # lowest column target first


@pytest.mark.parametrize(
    "state",
    [
        pos(cols=["|3D"], found={"C": 2}),  # only foundation-to-column: not considered
        pos(cols=["|9H 8S", "|9D"]),  # part move that frees nothing for a foundation
        pos(cols=["|KH", ""]),  # a King base to another empty column is not progress
        pos(cols=["|8S", "|9H"]),  # emptying a column with no King waiting
        pos(cols=["|9H"], stock="8D 2S"),  # nothing in the stock fits
        pos(cols=["|9H"], waste="8C 2S", passes=1),  # 8C buried, no recycle left
    ],
)
def test_no_moves_warning(state) -> None:
    assert state.hint() is None and state.no_moves
    assert state.view()["no_moves"] is True


def test_drawing_helps_through_one_more_pass_when_a_recycle_is_left() -> None:
    s = pos(cols=["|9H"], waste="8C 2S", passes=2)
    assert s.hint() == Draw()
    assert [cards.code(c) for c in s.future_waste_tops()] == ["8C", "2S"]
    d3 = pos(cols=["|9H"], stock="8C 2S 3S 4S", draw=3)  # 4S, 3S, 2S turn; 8C comes next
    assert [cards.code(c) for c in d3.future_waste_tops()] == ["2S", "8C", "2S", "8C"]


# -- view and parsing ------------------------------------------------------
def test_view_hides_face_down_cards_and_the_stock_order() -> None:
    seed = bytes(32)
    s = KLONDIKE.new_game(seed, KlondikeOptions(), player_id=1)
    v = s.view()
    assert [c["down"] for c in v["tableau"]] == list(range(7))
    assert all(len(c["up"]) == 1 for c in v["tableau"])
    assert v["stock"] == 24 and v["waste"] == [] and v["waste_count"] == 0
    assert v["foundations"] == {"C": None, "D": None, "H": None, "S": None}
    assert v["recycles_left"] is None
    text = str(v)
    hidden = [c for d, _ in s.cols for c in d] + list(s.stock)
    assert not any(cards.code(c) in text for c in hidden)


def test_waste_shows_at_most_three_top_last() -> None:
    v = pos(waste="2C 3C 4C 5C").view()
    assert v["waste"] == ["3C", "4C", "5C"] and v["waste_count"] == 4


@pytest.mark.parametrize(
    "data",
    [
        {"kind": "move", "from": "t7", "to": "t0"},
        {"kind": "move", "from": "waste"},
        {"kind": "move", "from": "t0", "to": "t1", "count": 0},
        {"kind": "move", "from": "t0", "to": "t1", "count": "2"},
        {"kind": "shuffle"},
        {"kind": "draw", "n": 3},
    ],
)
def test_malformed(data) -> None:
    with pytest.raises(MalformedAction):
        KLONDIKE.parse_action(data)


def test_action_round_trip_uses_protocol_names() -> None:
    a = KLONDIKE.parse_action({"kind": "move", "from": "waste", "to": "fH"})
    assert a.model_dump(mode="json", by_alias=True) == {
        "kind": "move",
        "from": "waste",
        "to": "fH",
        "count": 1,
    }


def test_options() -> None:
    assert KLONDIKE.parse_options({}) == KlondikeOptions(
        draw=1, passes=None, guaranteed=False, hints=False
    )
    for bad in ({"draw": 2}, {"passes": 0}, {"passes": 100}, {"x": 1}):
        with pytest.raises(ValueError):
            KLONDIKE.parse_options(bad)
