"""An entry as the board takes it (rows.py): its time at `now`, final or running and
capped at the deadline, and its figures as `standings()` ranks them."""

from __future__ import annotations

from server.competition.standings.rows import EntryRow, visible
from server.domain.model import Figures
from server.games.base import Status


def row(status: Status, time_ms: int = 0) -> EntryRow:
    return EntryRow("ann", Figures(status, 7, 1, 3, time_ms), started_at=1000, deadline=5000)


def test_a_running_game_counts_its_time_so_far_up_to_the_deadline() -> None:
    playing = row(Status.PLAYING, time_ms=99)  # a playing row's stored time is ignored
    assert playing.time_at(1000) == 0
    assert playing.time_at(3500) == 2500
    assert playing.time_at(9000) == 4000  # capped at deadline - started_at
    assert playing.result(3500).figures.time_ms == 2500


def test_a_finished_game_keeps_its_final_time() -> None:
    won = row(Status.WON, time_ms=1234)
    assert won.time_at(9000) == 1234
    assert won.result(9000).figures == won.figures


def test_what_a_row_shows_leaves_out_a_running_clock() -> None:
    assert visible(row(Status.PLAYING, 5)) == visible(row(Status.PLAYING, 6))
    assert visible(row(Status.WON, 5)) != visible(row(Status.WON, 6))
