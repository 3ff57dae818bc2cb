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
from dataclasses import dataclass

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
