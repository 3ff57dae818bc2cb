"""Disqualified entries in live standings (docs/COMPETITION.md "Fair play").

The leaderboard (leaderboard.py) keeps every entry, disqualified or not; the tournament's
`Table` (table.py) holds its disqualified (read with the board, dropped with it) and what
a reader is given goes through `adjust`: a disqualified row leaves its place and is
listed at the end of the rows asked for, with rank None and its reason (ranking.Unranked),
and every other row's rank drops by the number of disqualified rows ranked strictly
better than it, which is its rank in the table without them (ranks are one plus the rows
with a smaller key). Exact, and O(rows x disqualified) per view, where a tournament has
a handful of disqualified at most; nothing changes for a tournament with none.
"""

from __future__ import annotations

from collections.abc import Mapping

from server.competition.standings.leaderboard import Leaderboard
from server.domain.ranking import RankKey, Row, Standing, Unranked, rank_key


def adjust(
    reasons: Mapping[str, str], board: Leaderboard, rows: list[Standing], gap: int | None = None
) -> tuple[list[Row], int | None]:
    """`rows` (a slice of the board's table; `gap`: rows left out after the first
    `gap`) as readers see them with the disqualified (`reasons`: player name -> reason)
    taken out of the ranking."""
    if not reasons:
        return list(rows), gap
    keys: list[RankKey] = []
    for player in reasons:
        entry = board.get(player)
        if entry is not None:
            keys.append(entry.result(board.now).key)
    kept: list[Row] = []
    moved: list[Row] = []
    new_gap = gap
    for i, r in enumerate(rows):
        reason = reasons.get(r.player)
        if reason is None:
            key = rank_key(r.progress, r.resets, r.time_ms)
            better = sum(k < key for k in keys)
            kept.append(r if not better else r._replace(rank=r.rank - better))
        else:
            moved.append(Unranked.of_row(r, reason))
            if gap is not None and i < gap and new_gap is not None:
                new_gap -= 1
    return kept + moved, new_gap
