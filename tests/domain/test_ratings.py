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
    FieldEntry,
    Rating,
    percentile,
    ranks_of,
    rate,
    rate_closed_field,
    rate_field,
    shown,
    streak,
    top_half,
)

MODEL = PlackettLuce()
TOLERANCE = 1e-9


def library(mus: list[float], sigmas: list[float], ranks: list[int]) -> list[tuple[float, float]]:
    teams = [[MODEL.rating(mu=m, sigma=s)] for m, s in zip(mus, sigmas, strict=True)]
    return [(t[0].mu, t[0].sigma) for t in MODEL.rate(teams, ranks=list(ranks))]


Field = tuple[list[float], list[float], list[int]]


@st.composite
def fields(draw: st.DrawFn, max_size: int, min_size: int = 2) -> Field:
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


def assert_equal_to_library(field: Field) -> None:
    mus, sigmas, ranks = field
    mu, sigma = rate(mus, sigmas, ranks)
    for (m, s), m2, s2 in zip(library(mus, sigmas, ranks), mu, sigma, strict=True):
        assert abs(m - m2) <= TOLERANCE and abs(s - s2) <= TOLERANCE


@settings(max_examples=150, deadline=None)
@given(fields(max_size=60))
def test_small_fields_equal_openskill(field: Field) -> None:
    assert_equal_to_library(field)


@settings(max_examples=8, deadline=None)
@given(fields(max_size=1000))
def test_fields_of_hundreds_equal_openskill(
    field: Field,
) -> None:
    assert_equal_to_library(field)


@settings(max_examples=2, deadline=None)
@given(fields(max_size=4000, min_size=3000))
def test_fields_of_thousands_equal_openskill(
    field: Field,
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
@given(
    st.lists(
        st.tuples(st.integers(0, 3), st.integers(0, 2), st.integers(0, 3), st.booleans()),
        min_size=0,
        max_size=40,
    )
)
def test_ranks_of_follows_the_standings_rule(rows: list[tuple[int, int, int, bool]]) -> None:
    entries = [
        FieldEntry(i, f"p{i}", bot, "resigned", progress, resets, time_ms, 0)
        for i, (progress, resets, time_ms, bot) in enumerate(rows)
    ]
    by_standings = {
        r.player: r.rank
        for r in standings(
            Result(e.player, e.status, e.progress, e.resets, e.time_ms, e.score) for e in entries
        )
    }
    assert ranks_of(entries) == [by_standings[e.player] for e in entries]


def test_a_closed_field_rates_only_who_counts_and_places_everyone() -> None:
    entries = [
        FieldEntry(1, "a", False, "won", 52, 0, 9000, 0),
        FieldEntry(2, "b", True, "resigned", 40, 0, 100, 0),  # a bot: placed, not rated
        FieldEntry(3, "c", False, "resigned", 40, 0, 100, 0),
    ]
    placings, moved = rate_closed_field(7, "gaps", True, entries, {})
    assert [(p.player_id, p.rank, p.ranked, p.entrants) for p in placings] == [
        (1, 1, 3, 3),
        (2, 2, 3, 3),
        (3, 2, 3, 3),
    ]
    assert placings[1].mu is None and {r.player_id for r in moved} == {1, 3}
    lib = library([MU, MU], [SIGMA, SIGMA], [1, 2])
    flat = [x for r in moved for x in (r.mu, r.sigma)]
    assert flat == pytest.approx([x for pair in lib for x in pair], abs=1e-12)
    _, none = rate_closed_field(7, "gaps", False, entries, {})  # not a rated tournament
    assert none == []
