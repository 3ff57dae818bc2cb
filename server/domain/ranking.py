"""Standings from results (docs/COMPETITION.md). Pure; shared by server and verifier.

Order: progress (more first), then resets (fewer first), then time_ms (less
first). Equal keys share a rank (1, 2, 2, 4); within a shared rank rows are
listed by player name, case-insensitively (then by the name itself), so the
order is reproducible.

This module is the one place of that rule: `rank_key` is the ranking key and
`order_key` the full order of rows. `standings()` sorts on them, the verifier
goes through `standings()`, and the live leaderboard
(server/competition/leaderboard.py) keeps its rows sorted on `order_key`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import NamedTuple

RankKey = tuple[int, int, int]
"""(-progress, resets, time_ms): smaller ranks better; equal keys share a rank."""

OrderKey = tuple[int, int, int, str, str]
"""A rank key, then the player's name casefolded, then the name: the order of rows."""


def rank_key(progress: int, resets: int, time_ms: int) -> RankKey:
    """The ranking rule as a sort key: a smaller key ranks better.

    The leaderboard relies on its shape: the first two parts (the "group") do not
    depend on time, and the last part is the time itself, so a running clock only
    moves a row later within its group.
    """
    return (-progress, resets, time_ms)


def name_key(player: str) -> tuple[str, str]:
    """Order of rows within a shared rank: the name casefolded, then the name."""
    return (player.casefold(), player)


def order_key(progress: int, resets: int, time_ms: int, player: str) -> OrderKey:
    """The position of a row in the standings: its rank key, then its name key."""
    return rank_key(progress, resets, time_ms) + name_key(player)


@dataclass(frozen=True, slots=True)
class Result:
    """One entry's figures as they stand (final or so far)."""

    player: str
    status: str
    progress: int
    resets: int
    time_ms: int
    score: int

    @property
    def key(self) -> RankKey:
        return rank_key(self.progress, self.resets, self.time_ms)


class Standing(NamedTuple):
    """One row of a table. A named tuple, not a frozen dataclass: a live leaderboard makes
    thousands a second, and this one is built several times faster."""

    rank: int
    player: str
    status: str
    progress: int
    resets: int
    time_ms: int
    score: int
    bot: bool = False  # v1.3: in pushed and paged rows (not yet in bundles: as_dict)

    def as_dict(self) -> dict[str, object]:
        """The row as bundles carry it (RECORD.md; without `bot` until the verifier
        checks it)."""
        d = self._asdict()
        del d["bot"]
        return d


def standings(results: Iterable[Result]) -> list[Standing]:
    """Ranked rows, best first; equal (progress, resets, time_ms) share a rank."""
    ordered = sorted(results, key=lambda r: order_key(r.progress, r.resets, r.time_ms, r.player))
    rows: list[Standing] = []
    for i, r in enumerate(ordered):
        rank = rows[-1].rank if rows and ordered[i - 1].key == r.key else i + 1
        rows.append(Standing(rank, r.player, r.status, r.progress, r.resets, r.time_ms, r.score))
    return rows


# -- fair play (COMPETITION.md "Fair play") ------------------------------------------------
class Unranked(NamedTuple):
    """A disqualified entry's row: listed after every ranked row, with no rank and the
    operator's reason."""

    player: str
    status: str
    progress: int
    resets: int
    time_ms: int
    score: int
    disqualified: str
    rank: None = None
    bot: bool = False  # v1.3: in pushed and paged rows, like Standing.bot

    def as_dict(self) -> dict[str, object]:
        return {
            "rank": None,
            "player": self.player,
            "status": self.status,
            "progress": self.progress,
            "resets": self.resets,
            "time_ms": self.time_ms,
            "score": self.score,
            "disqualified": self.disqualified,
        }


def standings_without(
    results: Iterable[Result], disqualified: Mapping[str, str]
) -> list[Standing | Unranked]:
    """The standings with the disqualified (player name -> reason) taken out: the others
    ranked by `standings()` as if those entries were absent, then the disqualified in
    the same order of rows (their own figures, then name), each with rank None."""
    ranked: list[Result] = []
    out: list[Result] = []
    for r in results:
        (out if r.player in disqualified else ranked).append(r)
    rows: list[Standing | Unranked] = list(standings(ranked))
    out.sort(key=lambda r: order_key(r.progress, r.resets, r.time_ms, r.player))
    rows.extend(
        Unranked(
            r.player, r.status, r.progress, r.resets, r.time_ms, r.score, disqualified[r.player]
        )
        for r in out
    )
    return rows


Row = Standing | Unranked
"""A row as readers see it: ranked, or disqualified (rank None)."""
