"""Ratings: openskill 6.2.0's Plackett–Luce update, in O(n log n). Pure (numpy only).

The model (docs/COMPETITION.md "Ratings") is `openskill.models.PlackettLuce()` with its
defaults, every entrant a team of one, `rate(teams, ranks=...)`. The library compares
every pair of entrants (O(n²): minutes at 100,000); its sums are sums over ranks, so
here they are prefix and suffix sums over the rank groups of the sorted field:

    sigma_i  = sqrt(sigma_i² + tau²)          (the dynamics come first)
    c        = sqrt(Σ_i (sigma_i² + beta²))
    e_i      = exp(mu_i / c)
    S_g      = Σ e_j over the entrants j ranked at or below group g   (suffix sums)
    omega_i  = (1/a_g(i) − e_i · Σ_{h ≤ g(i)} 1/S_h) · sigma_i² / c
    delta_i  = (e_i · Σ_{h ≤ g(i)} 1/S_h − e_i² · Σ_{h ≤ g(i)} 1/S_h²)
               · sigma_i² / c² · sigma_i / c   (the default gamma: sigma_i / c)
    mu_i'    = mu_i + omega_i
    sigma_i' = sigma_i · sqrt(max(1 − delta_i, kappa))

with a_g the size of group g (equal ranks). The library's per-pair terms sum to exactly
these: a group h of a_h tied entrants contributes a_h · (1/a_h) · e_i/S_h. Its later
"average the mu change of tied teams" step changes nothing in 6.2.0 (it compares each
updated rating with itself), so tied entrants keep their own changes here too.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import repeat
from typing import Any, NamedTuple, TypeVar

import numpy as np
import numpy.typing as npt

MU = 25.0
SIGMA = 25.0 / 3.0
BETA = 25.0 / 6.0
KAPPA = 0.0001
TAU = 25.0 / 300.0
PROVISIONAL_BELOW = 5  # rated tournaments of a game before a rating is established

Floats = npt.NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class Rating:
    """One player's rating in one game."""

    mu: float = MU
    sigma: float = SIGMA

    @property
    def shown(self) -> float:
        """The rating shown and ranked on: mu − 3·sigma."""
        return shown(self.mu, self.sigma)


def shown(mu: float, sigma: float) -> float:
    """The displayed rating, a conservative estimate: mu − 3·sigma."""
    return mu - 3.0 * sigma


def rate(mu: npt.ArrayLike, sigma: npt.ArrayLike, rank: npt.ArrayLike) -> tuple[Floats, Floats]:
    """The new (mu, sigma) of every entrant of one field, in the given order.

    `rank[i]` is entrant i's final rank (smaller is better; equal ranks tie; any
    integers). Equal to openskill 6.2.0's `PlackettLuce().rate([[r] for r in ratings],
    ranks=rank)` to rounding (1e-12 relative in practice). At least 2 entrants."""
    mus = np.asarray(mu, dtype=np.float64)
    ranks = np.asarray(rank, dtype=np.int64)
    n = mus.shape[0]
    if n < 2 or ranks.shape != (n,) or np.shape(sigma) != (n,):
        raise ValueError("rate needs at least 2 entrants, each with mu, sigma and rank")
    sig = np.sqrt(np.square(np.asarray(sigma, dtype=np.float64)) + TAU * TAU)
    var = sig * sig
    c = math.sqrt(float(np.sum(var + BETA * BETA)))
    e = np.exp(mus / c)

    order = np.argsort(ranks, kind="stable")
    sorted_ranks = ranks[order]
    starts = np.flatnonzero(np.r_[True, sorted_ranks[1:] != sorted_ranks[:-1]])
    sizes = np.diff(np.r_[starts, n])
    group_sums = np.add.reduceat(e[order], starts)
    at_or_below = np.cumsum(group_sums[::-1])[::-1]  # S_g
    inv1 = np.cumsum(1.0 / at_or_below)
    inv2 = np.cumsum(1.0 / np.square(at_or_below))

    group_of = np.empty(n, dtype=np.int64)
    group_of[order] = np.repeat(np.arange(starts.shape[0]), sizes)
    p1, p2, a = inv1[group_of], inv2[group_of], sizes[group_of]
    omega = (1.0 / a - e * p1) * (var / c)
    delta = (e * p1 - e * e * p2) * (var / (c * c)) * (np.sqrt(var) / c)
    new_mu = mus + omega
    new_sigma = sig * np.sqrt(np.maximum(1.0 - delta, KAPPA))
    return new_mu, new_sigma


def rate_field(ratings: list[Rating], ranks: list[int]) -> list[Rating]:
    """`rate` on Rating values: the field's new ratings in the same order."""
    mu, sigma = rate([r.mu for r in ratings], [r.sigma for r in ratings], ranks)
    return [Rating(float(m), float(s)) for m, s in zip(mu.tolist(), sigma.tolist(), strict=True)]


def percentile(rank: int, ranked: int) -> float:
    """Share of the ranked entrants at or below this rank, 0..100 (the winner of any
    field: 100), to one decimal."""
    return round(100.0 * (ranked - rank + 1) / ranked, 1) if ranked else 0.0


def top_half(rank: int, ranked: int) -> bool:
    """Ranked in the top half: rank ≤ ranked / 2 (of 3, only rank 1)."""
    return 2 * rank <= ranked


def streak(placings: list[tuple[int | None, int]]) -> int:
    """Consecutive placings (rank or None when unranked, ranked entrants), newest first,
    in the top half."""
    count = 0
    for rank, ranked in placings:
        if rank is None or not top_half(rank, ranked):
            break
        count += 1
    return count


class PlacingRow(NamedTuple):
    """One entry's final place in a closed tournament; its rating after the tournament
    (mu, sigma) when it was rated there, else None."""

    tournament_id: int
    player_id: int
    game: str
    rank: int | None
    ranked: int
    entrants: int
    mu: float | None
    sigma: float | None


class RatingRow(NamedTuple):
    """A player's current rating in a game, after `tournaments` rated tournaments."""

    player_id: int
    game: str
    mu: float
    sigma: float
    tournaments: int


R = TypeVar("R", bound=tuple[Any, ...])


def _rows(cls: type[R], values: Iterable[tuple[Any, ...]]) -> list[R]:
    """Named tuples made from plain ones at C speed (tuple.__new__, as `_make` does): a
    field of 100,000 makes 200,000 of them, and their own __new__ was a third of it."""
    return list(map(tuple.__new__, repeat(cls), values))


def rate_tournament(
    tournament_id: int,
    game: str,
    rated: bool,
    players: list[int],
    ranks: list[int | None],
    counted: list[bool],
    current: dict[int, RatingRow],
) -> tuple[list[PlacingRow], list[RatingRow]]:
    """A closed tournament's placings and its rated entrants' new ratings. Per entry, in
    one order: its player, final rank (None: not ranked) and whether it counts for
    ratings; `current` holds the players' ratings by id (absent: MU, SIGMA).

    The tournament moves ratings when it is `rated` and at least 2 of its ranked entrants
    count; otherwise it only places its entrants (placings without mu, sigma)."""
    n = len(players)
    ranked = sum(r is not None for r in ranks)
    field: list[int] = []
    field_ranks: list[int] = []
    for i, rank in enumerate(ranks):
        if counted[i] and rank is not None:
            field.append(i)
            field_ranks.append(rank)
    mu_after: list[float | None] = [None] * n
    sigma_after: list[float | None] = [None] * n
    moved: list[RatingRow] = []
    if rated and len(field) >= 2:
        before = [current.get(players[i]) for i in field]
        mu, sigma = rate(
            [MU if r is None else r.mu for r in before],
            [SIGMA if r is None else r.sigma for r in before],
            field_ranks,
        )
        mus, sigmas = mu.tolist(), sigma.tolist()
        for j, i in enumerate(field):
            mu_after[i], sigma_after[i] = mus[j], sigmas[j]
        counts = [1 if r is None else r.tournaments + 1 for r in before]
        ids = [players[i] for i in field]
        moved = _rows(RatingRow, zip(ids, repeat(game, len(ids)), mus, sigmas, counts, strict=True))
    placings = _rows(
        PlacingRow,
        zip(
            repeat(tournament_id, n),
            players,
            repeat(game, n),
            ranks,
            repeat(ranked, n),
            repeat(n, n),
            mu_after,
            sigma_after,
            strict=True,
        ),
    )
    return placings, moved


class ClosedField(NamedTuple):
    """A closed tournament as the rebuild replays it."""

    tournament_id: int
    game: str
    rated: bool
    entries: list[FieldEntry]


def replay(fields: list[ClosedField]) -> tuple[list[PlacingRow], list[RatingRow]]:
    """Every placing and every final rating from nothing, the tournaments taken in the
    given order (close time, then id): what rating each at its close gives."""
    state: dict[tuple[int, str], RatingRow] = {}
    placings: list[PlacingRow] = []
    for f in fields:
        current = {e.player_id: r for e in f.entries if (r := state.get((e.player_id, f.game)))}
        rows, moved = rate_closed_field(f.tournament_id, f.game, f.rated, f.entries, current)
        placings.extend(rows)
        for r in moved:
            state[(r.player_id, r.game)] = r
    return placings, list(state.values())


class FieldEntry(NamedTuple):
    """An entry of a closed tournament with its final figures and its player's kind."""

    player_id: int
    player: str
    bot: bool
    status: str
    progress: int
    resets: int
    time_ms: int
    score: int
    disqualified: bool = False  # fair play: never ranked nor rated


def counts_for_rating(entry: FieldEntry) -> bool:
    """Whether an entrant is rated: not a bot, not disqualified (the one place of the
    rule)."""
    return not entry.bot and not entry.disqualified


def ranks_of(entries: list[FieldEntry]) -> list[int]:
    """Each entry's final rank by the standings' rule (server/domain/ranking.rank_key:
    more progress, then fewer resets, then less time; equal keys share the rank of the
    first of them, 1, 2, 2, 4), in entry order. The same ranks as ranking.standings
    (tests/domain/test_ratings.py), computed on arrays for fields of 100,000."""
    n = len(entries)
    if n == 0:
        return []
    keys = [
        -np.fromiter((e.progress for e in entries), np.int64, n),
        np.fromiter((e.resets for e in entries), np.int64, n),
        np.fromiter((e.time_ms for e in entries), np.int64, n),
    ]
    order = np.lexsort(keys[::-1])  # the first key primary, as rank_key's tuple
    first = np.zeros(n, dtype=bool)  # the first row of its group of equal keys
    first[0] = True
    for key in keys:
        k = key[order]
        first[1:] |= k[1:] != k[:-1]
    group_rank = np.maximum.accumulate(np.where(first, np.arange(1, n + 1), 0))
    ranks = np.empty(n, dtype=np.int64)
    ranks[order] = group_rank
    out: list[int] = ranks.tolist()
    return out


def rate_closed_field(
    tournament_id: int,
    game: str,
    rated: bool,
    entries: list[FieldEntry],
    current: dict[int, RatingRow],
) -> tuple[list[PlacingRow], list[RatingRow]]:
    """`rate_tournament` on a closed tournament's entries as stored (what the rating step
    runs in its worker process)."""
    ranks: list[int | None] = list(ranks_of(entries))
    if any(e.disqualified for e in entries):  # fair play: ranked as if they were absent
        kept = [i for i, e in enumerate(entries) if not e.disqualified]
        ranks = [None] * len(entries)
        for i, rank in zip(kept, ranks_of([entries[i] for i in kept]), strict=True):
            ranks[i] = rank
    return rate_tournament(
        tournament_id,
        game,
        rated,
        [e.player_id for e in entries],
        ranks,
        [counts_for_rating(e) for e in entries],
        current,
    )
