"""A team battle's club standings (COMPETITION.md "Clubs and team battles (v1.4)"). Pure;
shared by the server's live and final tables and by the verifier.

With `ranked` the number of ranked entries (the disqualified are not ranked), an entry of
rank r earns `ranked - r + 1`, shared ranks alike. A club's score is the sum over its best
`counted` ranked entries, `counted_ranks` their ranks ascending. Clubs are ordered by
score (higher first), then best rank (lower first; a club without a ranked entry after
every club with one), then club id (lower first).

A club's score is `k * (ranked + 1) - sum(counted_ranks)` for its k counted entries, so
only each club's best `counted` ranks and the number of ranked entries matter: `table`
reads rows best first and stops once every club has its `counted` ranks.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple


class ClubScore(NamedTuple):
    """One club's line of a battle's table, in the order of the wire's object."""

    club: int
    name: str
    score: int
    counted_ranks: list[int]

    def as_dict(self) -> dict[str, object]:
        """`{"club", "name", "score", "counted_ranks"}` (PROTOCOL.md "Team battles")."""
        return {
            "club": self.club,
            "name": self.name,
            "score": self.score,
            "counted_ranks": list(self.counted_ranks),
        }


def table(
    rows: Iterable[tuple[int | None, int | None]],
    ranked: int,
    clubs: Sequence[tuple[int, str]],
    counted: int,
) -> list[ClubScore]:
    """The clubs' table. `rows` are (rank, club) of the standings' rows best first, as
    the standings list them (ranked rows in order of rank, the unranked after: rank None);
    `ranked` the number of ranked rows; `clubs` every named club (id, name), each once.
    A row whose club is None or not named earns nothing."""
    ranks: dict[int, list[int]] = {club: [] for club, _ in clubs}
    open_clubs = len(ranks)
    for rank, club in rows if open_clubs and counted > 0 else ():
        if rank is None:
            break
        got = ranks.get(club) if club is not None else None
        if got is None or len(got) >= counted:
            continue
        got.append(rank)
        if len(got) == counted:
            open_clubs -= 1
            if not open_clubs:
                break
    lines = [
        ClubScore(club, name, len(ranks[club]) * (ranked + 1) - sum(ranks[club]), ranks[club])
        for club, name in clubs
    ]
    lines.sort(key=_order)
    return lines


def _order(line: ClubScore) -> tuple[int, int, int, int]:
    """Score (higher first), then best rank (none after all), then club id."""
    best = line.counted_ranks[0] if line.counted_ranks else 0
    return (-line.score, not line.counted_ranks, best, line.club)
