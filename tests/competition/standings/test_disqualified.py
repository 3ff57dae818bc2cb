"""The disqualified as readers see them (disqualified.py): out of the ranking, listed at
the end with their reason, every row ranked below one of them moved up, a window's gap
shortened by those it held."""

from __future__ import annotations

from server.competition.standings.disqualified import adjust
from server.domain.ranking import Unranked
from tests.competition.standings.test_leaderboard import LOST, board, done, names


def test_nobody_disqualified_changes_nothing() -> None:
    lb = board(done("a", 48, 0, 10), done("b", 40, 0, 10, LOST))
    rows = lb.rows()
    assert adjust({}, lb, rows, 1) == (rows, 1)


def test_a_disqualified_row_leaves_its_rank_and_comes_last_with_its_reason() -> None:
    lb = board(done("a", 48, 0, 10), done("b", 48, 0, 20), done("c", 30, 0, 5, LOST))
    shown, gap = adjust({"a": "a second account"}, lb, lb.rows())
    assert names(shown[:2]) == [(1, "b"), (2, "c")]  # each moved up by one
    assert isinstance(shown[2], Unranked) and shown[2].rank is None
    assert (shown[2].player, shown[2].disqualified) == ("a", "a second account")
    assert gap is None


def test_rows_tied_with_a_disqualified_row_keep_their_rank() -> None:
    lb = board(done("a", 48, 0, 10), done("b", 48, 0, 10), done("c", 30, 0, 5, LOST))
    shown, _ = adjust({"a": "x"}, lb, lb.rows())
    assert names(shown[:2]) == [(1, "b"), (2, "c")]  # a tie above nobody: b stays first


def test_a_window_gap_counts_the_disqualified_it_held() -> None:
    lb = board(*(done(f"p{i}", 48, 0, 100 + i) for i in range(8)))
    rows, gap = lb.window_and_gap(2, 1, "p6")
    assert gap == 2
    shown, new_gap = adjust({"p1": "x"}, lb, rows, gap)
    assert new_gap == 1
    assert [s.player for s in shown] == ["p0", "p5", "p6", "p7", "p1"]
