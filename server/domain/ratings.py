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
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import repeat
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:  # numpy is imported where the arithmetic runs, in the rating worker: the
    # event loop's process never needs it (it cost a node's start-up about a fifth of
    # its imports, and OpenBLAS's threads; docs/RELIABILITY.md "The chaos bench")
    import numpy as np
    import numpy.typing as npt

    Floats = npt.NDArray[np.float64]

MU = 25.0
SIGMA = 25.0 / 3.0
BETA = 25.0 / 6.0
KAPPA = 0.0001
TAU = 25.0 / 300.0
PROVISIONAL_BELOW = 5  # rated tournaments of a game before a rating is established


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
    import numpy as np

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


class Field(NamedTuple):
    """A closed tournament's entries as columns (what crosses to the worker process:
    lists of numbers pickle at C speed, named tuples by the hundred thousand do not)."""

    players: list[int]
    bots: list[bool]
    progress: list[int]
    resets: list[int]
    time_ms: list[int]
    disqualified: list[bool] | None = None  # fair play: never ranked nor rated (None: none)


class RatingOutcome(NamedTuple):
    """What taking a closed tournament in gives, per entry in the field's order: its rank
    (None: not ranked), and its rating after (mu, sigma, rated tournaments of the game)
    when the tournament moved it, else None; `ranked` counts the ranked entries."""

    ranks: list[int | None]
    ranked: int
    mu: list[float | None]
    sigma: list[float | None]
    tournaments: list[int | None]


Current = dict[int, tuple[float, float, int]]  # player id -> (mu, sigma, tournaments)


def counts_for_rating(bot: bool, disqualified: bool = False) -> bool:
    """Whether an entrant is rated: not a bot, not disqualified (fair play). The one
    place of the rule."""
    return not bot and not disqualified


def ranks_of(progress: list[int], resets: list[int], time_ms: list[int]) -> list[int]:
    """Each entry's final rank by the standings' rule (server/domain/ranking.rank_key:
    more progress, then fewer resets, then less time; equal keys share the rank of the
    first of them, 1, 2, 2, 4), in entry order. The same ranks as ranking.standings
    (tests/domain/test_ratings.py), computed on arrays for fields of 100,000."""
    n = len(progress)
    if n == 0:
        return []
    import numpy as np

    keys = [
        -np.asarray(progress, dtype=np.int64),
        np.asarray(resets, dtype=np.int64),
        np.asarray(time_ms, dtype=np.int64),
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


def take_in(rated: bool, field: Field, current: Current) -> RatingOutcome:
    """A closed tournament's outcome from its field and its players' current ratings
    (absent: MU, SIGMA). It moves ratings when it is `rated` and at least 2 of its ranked
    entrants count for ratings; otherwise it only places its entrants."""
    n = len(field.players)
    out = field.disqualified or [False] * n
    ranks = _ranks_without(field, out)
    ranked = sum(r is not None for r in ranks)
    chosen: list[int] = []
    chosen_ranks: list[int] = []
    for i, (rank, bot, dq) in enumerate(zip(ranks, field.bots, out, strict=True)):
        if rank is not None and counts_for_rating(bot, dq):
            chosen.append(i)
            chosen_ranks.append(rank)
    mu_after: list[float | None] = [None] * n
    sigma_after: list[float | None] = [None] * n
    count_after: list[int | None] = [None] * n
    if rated and len(chosen) >= 2:
        start = (MU, SIGMA, 0)
        before = [current.get(field.players[i], start) for i in chosen]
        mu, sigma = rate([b[0] for b in before], [b[1] for b in before], chosen_ranks)
        for i, m, sg, b in zip(chosen, mu.tolist(), sigma.tolist(), before, strict=True):
            mu_after[i], sigma_after[i], count_after[i] = m, sg, b[2] + 1
    return RatingOutcome(ranks, ranked, mu_after, sigma_after, count_after)


def _ranks_without(field: Field, out: list[bool]) -> list[int | None]:
    """The entries' ranks with the disqualified ranked as if absent (rank None)."""
    if not any(out):
        return list(ranks_of(field.progress, field.resets, field.time_ms))
    kept = [i for i, dq in enumerate(out) if not dq]
    ranks: list[int | None] = [None] * len(out)
    pick = [field.progress[i] for i in kept], [field.resets[i] for i in kept]
    for i, rank in zip(kept, ranks_of(*pick, [field.time_ms[i] for i in kept]), strict=True):
        ranks[i] = rank
    return ranks


def replay(
    fields: list[tuple[str, bool, Field]],
) -> tuple[list[RatingOutcome], dict[tuple[int, str], tuple[float, float, int]]]:
    """Every tournament's outcome from nothing, the tournaments (game, rated, field)
    taken in the given order (close time, then id), and the final ratings by (player,
    game): what taking each in at its close gives."""
    state: dict[tuple[int, str], tuple[float, float, int]] = {}
    outcomes: list[RatingOutcome] = []
    for game, rated, field in fields:
        current = {p: r for p in field.players if (r := state.get((p, game)))}
        out = take_in(rated, field, current)
        outcomes.append(out)
        for p, m, sg, c in zip(field.players, out.mu, out.sigma, out.tournaments, strict=True):
            if m is not None and sg is not None and c is not None:
                state[(p, game)] = (m, sg, c)
    return outcomes, state


def placing_rows(
    tournament_id: int, game: str, field: Field, out: RatingOutcome
) -> Iterator[tuple[Any, ...]]:
    """The outcome's placings as PlacingRow's values, in the field's order."""
    n = len(field.players)
    return zip(
        repeat(tournament_id, n),
        field.players,
        repeat(game, n),
        out.ranks,
        repeat(out.ranked, n),
        repeat(n, n),
        out.mu,
        out.sigma,
        strict=True,
    )
