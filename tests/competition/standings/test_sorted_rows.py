"""A board's reads (sorted_rows.py): ranks, windows with the player's rows, pages, at
the edges of shared ranks (the oracle-checked runs are test_leaderboard.py's)."""

from __future__ import annotations

from tests.competition.standings.test_leaderboard import LOST, board, done, names


def test_rank_one_and_last_rank() -> None:
    lb = board(done("a", 48, 0, 50), done("b", 48, 0, 40), done("c", 10, 0, 5, LOST))
    assert lb.rank_of("b") == 1
    assert lb.rank_of("c") == 3
    assert names(lb.window(1, 0, "c")) == [(1, "b"), (3, "c")]
    assert names(lb.page(2, 10)) == [(3, "c")]


def test_ties_straddling_the_window_edge_keep_their_shared_rank() -> None:
    lb = board(
        done("z", 48, 0, 10),
        *(done(n, 40, 1, 77, LOST) for n in ["e", "B", "a", "D", "c"]),
        done("last", 1, 0, 1, LOST),
    )
    assert names(lb.rows()) == [
        (1, "z"),
        (2, "a"),
        (2, "B"),
        (2, "c"),
        (2, "D"),
        (2, "e"),
        (7, "last"),
    ]
    assert names(lb.window(3, 0)) == [(1, "z"), (2, "a"), (2, "B")]
    assert names(lb.page(3, 2)) == [(2, "c"), (2, "D")]
    assert names(lb.window(1, 1, "D")) == [(1, "z"), (2, "c"), (2, "D"), (2, "e")]


def test_top_and_around_overlap_or_touch_and_merge_without_duplicates() -> None:
    lb = board(*(done(f"p{i}", 48, 0, 100 + i) for i in range(10)))
    assert [s.player for s in lb.window(3, 2, "p3")] == ["p0", "p1", "p2", "p3", "p4", "p5"]
    assert [s.player for s in lb.window(3, 1, "p4")] == ["p0", "p1", "p2", "p3", "p4", "p5"]
    assert [s.player for s in lb.window(2, 1, "p5")] == ["p0", "p1", "p4", "p5", "p6"]
    assert [s.player for s in lb.window(2, 3, "p9")] == ["p0", "p1", "p6", "p7", "p8", "p9"]


def test_a_player_without_an_entry_sees_the_top_only() -> None:
    lb = board(*(done(f"p{i}", 48, 0, 100 + i) for i in range(5)))
    assert [s.player for s in lb.window(2, 5, "nobody")] == ["p0", "p1"]
    assert lb.rank_of("nobody") is None
    assert lb.window(10, 5, None) == lb.rows()
    assert lb.page(5, 10) == [] and lb.page(50, 1) == []
