"""Standings from results (docs/COMPETITION.md). Pure; shared by server and verifier.

Order: progress (more first), then resets (fewer first), then time_ms (less
first). Equal keys share a rank (1, 2, 2, 4); within a shared rank rows are
listed by player name, case-insensitively: by the code points of the name's NFC form
lower-cased (then by the name itself), so the order is reproducible.

This module is the one place of that rule: `rank_key` is the ranking key and
`order_key` the full order of rows. `standings()` sorts on them, the verifier
goes through `standings()`, and the live leaderboard
(server/competition/standings/leaderboard.py) keeps its rows sorted on `order_key`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import NamedTuple

from server.domain import names
from server.domain.model import Figures

RankKey = tuple[int, int, int]
"""(-progress, resets, time_ms): smaller ranks better; equal keys share a rank."""

OrderKey = tuple[int, int, int, str, str]
"""A rank key, then the player's name key (NFC, lower-cased), then the name: the order of rows."""


def rank_key(progress: int, resets: int, time_ms: int) -> RankKey:
    """The ranking rule as a sort key: a smaller key ranks better.

    The leaderboard relies on its shape: the first two parts (the "group") do not
    depend on time, and the last part is the time itself, so a running clock only
    moves a row later within its group.
    """
    return (-progress, resets, time_ms)


def name_key(player: str) -> tuple[str, str]:
    """Order of rows within a shared rank: the name's key (NFC, lower-cased; compared
    code point by code point, server/domain/names.py), then the name."""
    return (names.name_key(player), player)


def order_key(
    progress: int, resets: int, time_ms: int, player: str, named: tuple[str, str] | None = None
) -> OrderKey:
    """The position of a row in the standings: its rank key, then its name key.

    `named` is `name_key(player)` when the caller holds it already (a live row moving).
    """
    return rank_key(progress, resets, time_ms) + (named or name_key(player))


@dataclass(frozen=True, slots=True)
class Result:
    """One player's figures as they stand (final or so far): what `standings()` ranks."""

    player: str
    figures: Figures

    @property
    def key(self) -> RankKey:
        f = self.figures
        return rank_key(f.progress, f.resets, f.time_ms)

    @property
    def order(self) -> OrderKey:
        f = self.figures
        return order_key(f.progress, f.resets, f.time_ms, self.player)


class Standing(NamedTuple):
    """One row of a table: a rank, a player and the figures it shows, flat in the order
    of a standings row (PROTOCOL.md, RECORD.md). A named tuple, not a record holding a
    `Figures`: a live leaderboard makes thousands a second (a running game's with its time
    so far), and this one is built several times faster. Made from figures by `of` (and,
    on the leaderboard's hot path, by standings.sorted_rows with the time at now)."""

    rank: int
    player: str
    status: str
    progress: int
    resets: int
    time_ms: int
    score: int
    bot: bool = False  # in pushed and paged rows (not yet in bundles: as_dict)

    @classmethod
    def of(cls, rank: int, player: str, f: Figures, bot: bool = False) -> Standing:
        return cls(rank, player, str(f.status), f.progress, f.resets, f.time_ms, f.score, bot)

    def as_dict(self) -> dict[str, object]:
        """The row as bundles carry it (RECORD.md; without `bot` until the verifier
        checks it)."""
        d = self._asdict()
        del d["bot"]
        return d


def standings(results: Iterable[Result]) -> list[Standing]:
    """Ranked rows, best first; equal (progress, resets, time_ms) share a rank."""
    ordered = sorted(results, key=lambda r: r.order)
    rows: list[Standing] = []
    for i, r in enumerate(ordered):
        rank = rows[-1].rank if rows and ordered[i - 1].key == r.key else i + 1
        rows.append(Standing.of(rank, r.player, r.figures))
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
    bot: bool = False  # in pushed and paged rows, like Standing.bot

    @classmethod
    def of(cls, player: str, f: Figures, reason: str, bot: bool = False) -> Unranked:
        status = str(f.status)  # a plain string, as rows are read and shown
        return cls(player, status, f.progress, f.resets, f.time_ms, f.score, reason, bot=bot)

    @classmethod
    def of_row(cls, row: Standing, reason: str) -> Unranked:
        """A ranked row taken out of the ranking (fair play)."""
        return cls(
            row.player, row.status, row.progress, row.resets, row.time_ms, row.score, reason,
            bot=row.bot,
        )  # fmt: skip

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
    out.sort(key=lambda r: r.order)
    rows.extend(Unranked.of(r.player, r.figures, disqualified[r.player]) for r in out)
    return rows


Row = Standing | Unranked
"""A row as readers see it: ranked, or disqualified (rank None)."""
