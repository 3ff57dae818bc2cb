"""A battle's club table (server/domain/club_score.py, COMPETITION.md "Clubs and team
battles (v1.4)"): the contract's worked example, shared ranks, clubs without a ranked
entry, the disqualified not ranked, and the order's every tie-break."""

from __future__ import annotations

from collections.abc import Iterator

from server.domain.club_score import ClubScore, table
from server.domain.ranking import Result, standings_without
from tests.support.factories import figures

A, B, C = 1, 2, 3
CLUBS = [(A, "Alpha"), (B, "Beta"), (C, "Gamma")]


def test_the_contracts_worked_example() -> None:
    """counted 2, 5 ranked; A at 1, 4, 5, B at 2, 3, C none: A 7 [1, 4], B 7 [2, 3], C 0."""
    rows = [(1, A), (2, B), (3, B), (4, A), (5, A)]
    assert table(rows, 5, CLUBS, 2) == [
        ClubScore(A, "Alpha", 7, [1, 4]),
        ClubScore(B, "Beta", 7, [2, 3]),
        ClubScore(C, "Gamma", 0, []),
    ]
    assert table(rows, 5, CLUBS, 2)[0].as_dict() == {
        "club": A,
        "name": "Alpha",
        "score": 7,
        "counted_ranks": [1, 4],
    }


def test_all_entries_count_when_a_club_has_fewer_than_counted() -> None:
    rows = [(1, A), (2, B), (3, B), (4, A), (5, A)]
    assert [(c.club, c.score, c.counted_ranks) for c in table(rows, 5, CLUBS, 3)] == [
        (A, 5 + 2 + 1, [1, 4, 5]),
        (B, 7, [2, 3]),
        (C, 0, []),
    ]


def test_shared_ranks_earn_alike() -> None:
    """Ranks 1, 1, 3: both firsts earn 3, the third 1."""
    rows = [(1, B), (1, A), (3, C)]
    assert [(c.club, c.score, c.counted_ranks) for c in table(rows, 3, CLUBS, 1)] == [
        (A, 3, [1]),  # same score and best rank as B: the lower id first
        (B, 3, [1]),
        (C, 1, [3]),
    ]


def test_clubs_without_a_ranked_entry_come_last_by_id() -> None:
    """The last ranked entry still earns 1, so only a club without one scores 0; such
    clubs come after every club with one, by id."""
    clubs = [(9, "Nine"), (C, "Gamma"), (A, "Alpha")]
    assert [c.club for c in table([(1, A)], 1, clubs, 2)] == [A, C, 9]


def test_best_rank_breaks_a_tie_of_score_before_the_id() -> None:
    """B (id 2) at 2, 3 and A (id 1) at 1, 4 both score 7: A first by best rank; with B
    at 1, 4 and A at 2, 3, B first although its id is higher."""
    rows = [(1, B), (2, A), (3, A), (4, B), (5, C)]
    assert [c.club for c in table(rows, 5, CLUBS, 2)] == [B, A, C]


def test_rows_of_no_named_club_earn_nothing_but_count_as_ranked() -> None:
    rows = [(1, None), (2, 7), (3, A)]
    assert table(rows, 3, CLUBS, 2)[0] == ClubScore(A, "Alpha", 1, [3])


def test_a_disqualified_entry_is_not_ranked() -> None:
    """From the standings with a disqualification: the others move up, the disqualified
    (rank None, listed last) earn nothing, and `ranked` counts only the ranked."""
    results = [
        Result("ann", figures(progress=40)),
        Result("bob", figures(progress=30)),
        Result("cat", figures(progress=20)),
    ]
    club = {"ann": A, "bob": B, "cat": A}
    rows = standings_without(results, {"ann": "solver"})
    pairs = [(r.rank, club[r.player]) for r in rows]
    assert pairs == [(1, B), (2, A), (None, A)]
    ranked = sum(r.rank is not None for r in rows)
    assert [(c.club, c.score, c.counted_ranks) for c in table(pairs, ranked, CLUBS, 2)] == [
        (B, 2, [1]),
        (A, 1, [2]),
        (C, 0, []),
    ]


def test_reading_stops_once_every_club_has_its_counted_ranks() -> None:
    """Live tables read rows best first: nothing after the last counted rank is read."""
    read: list[int] = []

    def rows() -> Iterator[tuple[int | None, int | None]]:
        for rank in range(1, 1000):
            read.append(rank)
            yield (rank, A if rank % 2 else B)

    clubs = [(A, "Alpha"), (B, "Beta")]
    got = table(rows(), 999, clubs, 2)
    assert [c.counted_ranks for c in got] == [[1, 3], [2, 4]]
    assert read == [1, 2, 3, 4]
