"""The O(n log n) Plackett–Luce update equals openskill 6.2.0's, to 1e-9 (fields with ties)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from openskill.models import PlackettLuce

from server.domain.ranking import Result, standings
from server.domain.ratings import (
    MU,
    SIGMA,
    Field,
    Rating,
    RatingOutcome,
    percentile,
    placing_rows,
    ranks_of,
    rate,
    rate_field,
    replay,
    shown,
    streak,
    take_in,
    top_half,
)
from tests.support.factories import figures

MODEL = PlackettLuce()
TOLERANCE = 1e-9


def library(mus: list[float], sigmas: list[float], ranks: list[int]) -> list[tuple[float, float]]:
    teams = [[MODEL.rating(mu=m, sigma=s)] for m, s in zip(mus, sigmas, strict=True)]
    return [(t[0].mu, t[0].sigma) for t in MODEL.rate(teams, ranks=list(ranks))]


Drawn = tuple[list[float], list[float], list[int]]


@st.composite
def fields(draw: st.DrawFn, max_size: int, min_size: int = 2) -> Drawn:
    """A field of 2..max_size entrants with ratings and ranks that often tie."""
    n = draw(st.integers(min_size, max_size))
    seed = draw(st.integers(0, 2**32 - 1))
    distinct = draw(st.integers(1, n))  # 1: everybody ties
    rng = random.Random(seed)
    mus = [rng.uniform(-10.0, 60.0) for _ in range(n)]
    sigmas = [rng.uniform(0.05, SIGMA) for _ in range(n)]
    if draw(st.booleans()):  # newcomers: the default rating, many equal values
        for i in rng.sample(range(n), n // 2):
            mus[i], sigmas[i] = MU, SIGMA
    values = sorted(rng.sample(range(1, 10 * n + 1), distinct))
    ranks = [rng.choice(values) for _ in range(n)]
    return mus, sigmas, ranks


def assert_equal_to_library(field: Drawn) -> None:
    mus, sigmas, ranks = field
    mu, sigma = rate(mus, sigmas, ranks)
    for (m, s), m2, s2 in zip(library(mus, sigmas, ranks), mu, sigma, strict=True):
        assert abs(m - m2) <= TOLERANCE and abs(s - s2) <= TOLERANCE


@settings(max_examples=150, deadline=None)
@given(fields(max_size=60))
def test_small_fields_equal_openskill(field: Drawn) -> None:
    assert_equal_to_library(field)


@settings(max_examples=8, deadline=None)
@given(fields(max_size=1000))
def test_fields_of_hundreds_equal_openskill(
    field: Drawn,
) -> None:
    assert_equal_to_library(field)


@settings(max_examples=2, deadline=None)
@given(fields(max_size=4000, min_size=3000))
def test_fields_of_thousands_equal_openskill(
    field: Drawn,
) -> None:
    assert_equal_to_library(field)


def test_a_field_of_4000_with_ties_and_one_of_strict_ranks() -> None:
    rng = random.Random(26)
    n = 4000
    mus = [rng.gauss(25, 8) for _ in range(n)]
    sigmas = [rng.uniform(0.5, SIGMA) for _ in range(n)]
    assert_equal_to_library((mus, sigmas, [rng.randint(1, 700) for _ in range(n)]))
    assert_equal_to_library((mus[:1500], sigmas[:1500], list(range(1, 1501))))


def test_winner_gains_and_loser_loses_and_everyone_grows_surer() -> None:
    new = rate_field([Rating(), Rating(), Rating()], [1, 2, 3])
    assert new[0].mu > MU > new[2].mu
    assert all(r.sigma < SIGMA for r in new)
    assert new[0].shown == shown(new[0].mu, new[0].sigma) == new[0].mu - 3 * new[0].sigma


def test_tied_entrants_keep_their_own_changes_as_the_library_does() -> None:
    # openskill 6.2.0 means to average the mu changes of a tie but compares each updated
    # rating with itself: the averaging changes nothing. So here too.
    mus, sigmas, ranks = [30.0, 20.0, 25.0], [3.0, 6.0, 8.0], [1, 1, 2]
    mu, _ = rate(mus, sigmas, ranks)
    assert abs((mu[0] - 30.0) - (mu[1] - 20.0)) > 0.5
    assert_equal_to_library((mus, sigmas, ranks))


def test_fields_of_fewer_than_two_or_mismatched_are_refused() -> None:
    with pytest.raises(ValueError):
        rate([25.0], [SIGMA], [1])
    with pytest.raises(ValueError):
        rate([25.0, 25.0], [SIGMA], [1, 2])


def test_percentile_counts_ranked_entrants_at_or_below() -> None:
    assert percentile(1, 10) == 100.0
    assert percentile(10, 10) == 10.0
    assert percentile(2, 4) == 75.0  # ranks 1, 2, 2, 4: three at or below rank 2
    assert percentile(1, 3) == 100.0 and percentile(2, 3) == 66.7


def test_streak_counts_top_half_placings_newest_back() -> None:
    assert top_half(1, 2) and not top_half(2, 3) and top_half(2, 4)
    assert streak([(1, 10), (5, 10), (6, 10), (1, 10)]) == 2
    assert streak([(None, 10), (1, 10)]) == 0
    assert streak([]) == 0


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 2), st.integers(0, 3)), max_size=40))
def test_ranks_of_follows_the_standings_rule(rows: list[tuple[int, int, int]]) -> None:
    by_standings = {
        r.player: r.rank
        for r in standings(
            Result(f"p{i}", figures("resigned", progress, resets, time_ms=time_ms))
            for i, (progress, resets, time_ms) in enumerate(rows)
        )
    }
    progress, resets, time_ms = ([r[k] for r in rows] for k in range(3))
    assert ranks_of(progress, resets, time_ms) == [by_standings[f"p{i}"] for i in range(len(rows))]


def test_a_closed_field_rates_only_who_counts_and_places_everyone() -> None:
    field = Field([1, 2, 3], [False, True, False], [52, 40, 40], [0, 0, 0], [9000, 100, 100])
    out = take_in(True, field, {})
    assert out.ranks == [1, 2, 2] and out.ranked == 3  # the bot placed, not rated
    assert out.mu[1] is None and out.tournaments == [1, None, 1]
    lib = library([MU, MU], [SIGMA, SIGMA], [1, 2])
    assert [out.mu[0], out.sigma[0], out.mu[2], out.sigma[2]] == pytest.approx(
        [lib[0][0], lib[0][1], lib[1][0], lib[1][1]], abs=1e-12
    )
    assert list(placing_rows(7, "gaps", field, out))[1] == (7, 2, "gaps", 2, 3, 3, None, None)
    assert take_in(False, field, {}).mu == [None, None, None]  # not a rated tournament
    alone = Field([1, 2], [False, True], [5, 9], [0, 0], [1, 1])
    assert take_in(True, alone, {}).mu == [None, None]  # one rated entrant: nothing moves


def test_replay_carries_ratings_from_one_tournament_to_the_next() -> None:
    first = Field([1, 2], [False, False], [9, 3], [0, 0], [5, 5])
    second = Field([2, 1], [False, False], [9, 3], [0, 0], [5, 5])
    outcomes, final = replay([("gaps", True, first), ("gaps", True, second)])
    again = take_in(True, second, {p: final_of(outcomes[0], first, p) for p in (1, 2)})
    assert outcomes[1] == again
    assert final[(1, "gaps")] == (again.mu[1], again.sigma[1], 2)


def final_of(out: RatingOutcome, field: Field, player: int) -> tuple[float, float, int]:
    i = field.players.index(player)
    mu, sigma, count = out.mu[i], out.sigma[i], out.tournaments[i]
    assert mu is not None and sigma is not None and count is not None
    return (mu, sigma, count)
