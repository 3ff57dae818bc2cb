"""What a Klondike player is shown (server/games/klondike_view.py): the view, the hint
in its priority order, the "no moves" warning and the waste tops drawing can bring."""

from __future__ import annotations

import pytest

from server.games import cards
from server.games.klondike import KLONDIKE, Draw, KlondikeOptions
from tests.support.klondike_positions import mv, pos


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
