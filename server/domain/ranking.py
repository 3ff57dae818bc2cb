"""Standings from results (docs/COMPETITION.md). Pure; shared by server and verifier.

Order: progress (more first), then resets (fewer first), then time_ms (less
first). Equal keys share a rank (1, 2, 2, 4); within a shared rank rows are
listed by player name, case-insensitively, so the order is reproducible.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass


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
    def key(self) -> tuple[int, int, int]:
        return (-self.progress, self.resets, self.time_ms)


@dataclass(frozen=True, slots=True)
class Standing:
    rank: int
    player: str
    status: str
    progress: int
    resets: int
    time_ms: int
    score: int

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


def standings(results: Iterable[Result]) -> list[Standing]:
    """Ranked rows, best first; equal (progress, resets, time_ms) share a rank."""
    ordered = sorted(results, key=lambda r: (r.key, r.player.casefold(), r.player))
    rows: list[Standing] = []
    for i, r in enumerate(ordered):
        rank = rows[-1].rank if rows and ordered[i - 1].key == r.key else i + 1
        rows.append(Standing(rank, r.player, r.status, r.progress, r.resets, r.time_ms, r.score))
    return rows
