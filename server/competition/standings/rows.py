"""The rows of a live leaderboard (leaderboard.py): an entry's figures as it takes them
(`EntryRow`) and a row as it stores them (`Rec`). Pure; times are epoch milliseconds."""

from __future__ import annotations

from operator import attrgetter
from typing import NamedTuple

from server.domain.model import Figures
from server.domain.ranking import OrderKey, Result, Standing
from server.games.base import Status

PLAYING = Status.PLAYING.value

TIE, PASS = 0, 1  # event kinds: two rows meet (tie), then one passes the other
Event = tuple[int, int, int, int, int, int]  # (at, kind, group0, group1, started_at, time)
Cap = tuple[int, int, str]  # (deadline, started_at, player)
Visible = tuple[str, int, int, int, int | None]
Group = tuple[int, int]  # the first two parts of a rank key


class EntryRow(NamedTuple):
    """One entry as the leaderboard takes it: the player, its figures, and its clock.

    `figures.time_ms` is the final time of a finished game and is ignored while it is
    playing; `started_at` and `deadline` are epoch milliseconds.
    """

    player: str
    figures: Figures
    started_at: int
    deadline: int
    bot: bool = False  # a bot's entry: marked in standings rows

    def time_at(self, now: int) -> int:
        """The time it ranks on at `now`: final, or so far (capped at the deadline)."""
        if self.figures.status == PLAYING:
            return min(now, self.deadline) - self.started_at
        return self.figures.time_ms

    def result(self, now: int) -> Result:
        """Its figures at `now`, as `standings()` takes them."""
        f = self.figures
        if f.status != PLAYING:
            return Result(self.player, f)
        running = Figures(f.status, f.progress, f.resets, f.score, self.time_at(now))
        return Result(self.player, running)


def visible(row: EntryRow) -> Visible:
    """What a row shows apart from its rank and its running clock."""
    f = row.figures
    return (f.status, f.progress, f.resets, f.score, None if f.status == PLAYING else f.time_ms)


class Rec:
    """A row as stored: `key` is its order key, with `-started_at` for the time
    when `running` (its time is then `now + key[2]`); `out` the last Standing
    made of it, reused while its rank and time stay."""

    __slots__ = ("key", "out", "row", "running")

    def __init__(self, row: EntryRow, key: OrderKey, running: bool) -> None:
        self.row = row
        self.key = key
        self.running = running
        self.out: Standing | None = None


key_of = attrgetter("key")
