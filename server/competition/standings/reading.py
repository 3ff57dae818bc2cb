"""Live standings of each tournament (COMPETITION.md), read through the tournament's
runtime object: its `Table` (table.py) holds the leaderboard, loaded from the store when
first needed and updated by the tournament's changes (tournament.py `receive`).

A reader asks for a window (the top rows and the rows around a player), a page, or the
whole table. `version` grows with every change of a tournament's standings, including
across reloads, so a client can order what it receives.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from server.competition.catalogue import Catalogue
from server.competition.standings.leaderboard import Leaderboard
from server.competition.standings.results import results_csv
from server.competition.standings.table import Table, View, WindowKey
from server.competition.tournament import CLOSED
from server.domain.ranking import Row
from server.store.repository import Store

__all__ = ["AROUND", "MAX_AROUND", "MAX_PAGE", "MAX_TOP", "TOP", "Standings", "View"]

TOP, AROUND = 10, 5  # PROTOCOL.md's default window
MAX_TOP, MAX_AROUND, MAX_PAGE = 100, 50, 100


class Standings:
    """The leaderboards of the tournaments this process serves."""

    def __init__(self, store: Store, catalogue: Catalogue, now: Callable[[], datetime]) -> None:
        self.store = store
        self.catalogue = catalogue
        self.now = now

    # -- reading -------------------------------------------------------------
    async def window(
        self, tournament_id: int, top: int = TOP, around: int = AROUND, player: str | None = None
    ) -> View:
        """The first `top` rows and `around` rows each side of `player`'s own row."""
        table, board, final = await self._board(tournament_id)
        return table.view(board, final, *board.window_and_gap(top, around, player))

    async def windows(self, tournament_id: int, wanted: list[WindowKey]) -> dict[WindowKey, View]:
        """Several windows (top, around, player) of one tournament at one moment."""
        table, board, final = await self._board(tournament_id)
        return table.windows(board, final, wanted)

    def windows_now(
        self, tournament_id: int, wanted: list[WindowKey]
    ) -> dict[WindowKey, View] | None:
        """`windows` without waiting, or None when the table or the tournament must be
        read from the store first (then ask `windows`)."""
        t = self.catalogue.tournaments.get(tournament_id)
        board = None if t is None else t.table.current()
        if t is None or board is None:
            return None
        return t.table.windows(board, t.info.status == CLOSED, wanted)

    async def page(self, tournament_id: int, offset: int, limit: int) -> View:
        """The rows ranked offset+1 .. offset+limit."""
        table, board, final = await self._board(tournament_id)
        return table.view(board, final, board.page(offset, limit))

    async def table(self, tournament_id: int) -> tuple[list[Row], bool]:
        """Every row and whether they are final."""
        table, board, final = await self._board(tournament_id)
        return table.rows(board), final

    async def results_csv(self, tournament_id: int) -> str:
        """The final standings as CSV (results.py); `not_found`, `not_revealed`."""
        return await results_csv(self.store, self.catalogue, tournament_id)

    async def _board(self, tournament_id: int) -> tuple[Table, Leaderboard, bool]:
        t = await self.catalogue.runtime(tournament_id)
        table = t.table
        board = await table.loaded()
        return table, board, t.info.status == CLOSED
