"""A team battle's live club table (table.py `Table.view`, v1.4 "Team battles"): every
view of a battle carries each row's club and the clubs' table, ranks without the
disqualified; it is made once per version of the standings and again after a change;
a tournament that is no battle carries neither."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from server.competition.standings.leaderboard import EntryRow, Leaderboard
from server.competition.standings.table import Table
from server.domain.model import Figures, Status

OWLS, FOXES = 11, 12
NOW = 10_000


def _row(player: str, progress: int) -> EntryRow:
    return EntryRow(player, Figures(Status.LOST, progress, 0, progress, 500), 0, 1_000_000)


def _table(battle: dict[str, Any] | None) -> tuple[Table, Leaderboard]:
    table = Table(7, None, lambda: datetime.fromtimestamp(NOW / 1000, UTC), battle)  # type: ignore[arg-type]
    board = Leaderboard(NOW)
    for player, progress in (("ann", 40), ("bob", 30), ("cat", 20), ("dan", 10)):
        board.upsert(_row(player, progress))
    table.board = board
    if battle is not None:
        table.named = [(OWLS, "Owls"), (FOXES, "Foxes")]
        table.club_of = {"ann": OWLS, "bob": FOXES, "cat": OWLS, "dan": FOXES}
    return table, board


def _lines(clubs: list[dict[str, Any]] | None) -> list[tuple[int, int, list[int]]]:
    assert clubs is not None
    return [(c["club"], c["score"], c["counted_ranks"]) for c in clubs]


def test_a_battles_views_carry_clubs_and_the_table_once_per_version() -> None:
    table, board = _table({"clubs": [OWLS, FOXES], "counted": 1})
    view = table.view(board, False, board.page(0, 2))
    assert view.club_of is not None and view.club_of["bob"] == FOXES
    assert _lines(view.clubs) == [(OWLS, 4, [1]), (FOXES, 3, [2])]
    assert table.view(board, False, board.page(2, 2)).clubs is view.clubs  # made once
    board.upsert(_row("dan", 48))  # dan (Foxes) first now: a new version
    assert _lines(table.view(board, False, board.page(0, 2)).clubs) == [
        (FOXES, 4, [1]),
        (OWLS, 3, [2]),
    ]


def test_the_disqualified_are_not_ranked_in_the_club_table() -> None:
    table, board = _table({"clubs": [OWLS, FOXES], "counted": 2})
    table.disqualified = {"ann": "solver"}
    view = table.view(board, False, board.page(0, 1))
    # bob 1 (3 points), cat 2 (2), dan 3 (1): 3 ranked
    assert _lines(view.clubs) == [(FOXES, 3 + 1, [1, 3]), (OWLS, 2, [2])]


def test_a_tournament_that_is_no_battle_carries_neither() -> None:
    table, board = _table(None)
    view = table.view(board, False, board.page(0, 4))
    assert view.clubs is None and view.club_of is None
