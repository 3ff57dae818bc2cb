"""Live standings of each tournament, in memory (COMPETITION.md): one `Leaderboard` per
tournament, loaded from the store when first needed and updated incrementally with every
change of an entry; running games rank on their time so far.

A reader asks for a window (the top rows and the rows around a player), a page, or the
whole table. `version` grows with every change of a tournament's standings, including
across reloads, so a client can order what it receives.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING, NamedTuple

from server.competition.catalogue import CLOSED, Catalogue
from server.competition.leaderboard import EntryRow, Leaderboard
from server.domain.model import EntryInfo, EntryNotice, Status, Summary
from server.domain.ranking import Standing
from server.domain.timing import epoch_ms
from server.store.repository import Store

if TYPE_CHECKING:
    from server.competition.live import LiveGame

TOP, AROUND = 10, 5  # PROTOCOL.md's default window
PLAYING = Status.PLAYING
MAX_TOP, MAX_AROUND, MAX_PAGE = 100, 50, 100


class View(NamedTuple):
    """Rows of a tournament's standings as they stand at `now_ms`."""

    rows: list[Standing]
    total: int
    version: int
    final: bool
    now_ms: int
    gap_after: int | None = None  # rows left out after the first `gap_after` rows


def row_of_entry(e: EntryInfo) -> EntryRow:
    return EntryRow(
        e.player_name,
        e.status,
        e.progress,
        e.resets,
        e.score,
        e.time_ms,
        epoch_ms(e.started_at),
        epoch_ms(e.deadline),
        e.player_bot,  # v1.3 hook: bots marked in standings
    )


def row_of_game(live: LiveGame) -> EntryRow:
    e, state = live.entry, live.state
    return EntryRow(
        e.player_name,
        live.status,
        state.progress,
        state.resets,
        state.score,
        live.time_ms,
        epoch_ms(e.started_at),
        epoch_ms(e.deadline),
        e.player_bot,  # v1.3 hook: bots marked in standings
    )


class Standings:
    """The leaderboards of the tournaments this process serves."""

    def __init__(self, store: Store, catalogue: Catalogue, now: Callable[[], datetime]) -> None:
        self.store = store
        self.catalogue = catalogue
        self.now = now
        self._boards: dict[int, Leaderboard] = {}
        self._base: dict[int, int] = {}  # version offset of a reloaded board
        self._loading: dict[int, dict[str, EntryRow]] = {}  # changes seen during a load
        self._locks: dict[int, asyncio.Lock] = {}
        self._by_entry: dict[int, EntryRow] = {}  # the rows of loaded boards, by entry id
        self._stale: set[int] = set()  # loads overtaken by a change of many rows
        self._progress: dict[int, tuple[int, bool]] = {}  # entry -> (seq, ended) known

    # -- changes -------------------------------------------------------------
    def entry_changed(self, entry: EntryInfo) -> None:
        """A new entry (its row is in the store)."""
        if entry.tournament_id in self._boards or entry.tournament_id in self._loading:
            self._progress[entry.id] = (entry.seq, entry.status != PLAYING)
            self._upsert(entry.tournament_id, entry.id, row_of_entry(entry))

    def game_changed(self, live: LiveGame) -> None:
        """An entry's figures or status changed (its row is in the store). Nothing to do
        for a tournament whose table nobody has asked for (it is read when first asked)."""
        tournament_id = live.entry.tournament_id
        if tournament_id in self._boards or tournament_id in self._loading:
            self._progress[live.entry.id] = (len(live.actions), live.status != PLAYING)
            self._upsert(tournament_id, live.entry.id, row_of_game(live))

    def summary_changed(self, tournament_id: int, entry_id: int, s: Summary | EntryNotice) -> bool:
        """An entry's row now holds `s` (a timeout; a change another node made); whether
        it was news (a summary older than what this node has is ignored: notices may
        arrive after this node's own later change)."""
        step = (s.seq, s.status != PLAYING)
        if step <= self._progress.get(entry_id, (-1, False)):
            return False
        old = self._by_entry.get(entry_id)
        if old is None:
            if tournament_id in self._boards or tournament_id in self._loading:
                self.tournament_changed(tournament_id)  # an entry this board never saw
            return True
        self._progress[entry_id] = step
        row = replace(
            old,
            status=s.status,
            progress=s.progress,
            resets=s.resets,
            score=s.score,
            time_ms=s.time_ms,
        )
        self._upsert(tournament_id, entry_id, row)
        return True

    def knows(self, entry_id: int) -> bool:
        return entry_id in self._by_entry

    def tournament_changed(self, tournament_id: int) -> None:
        """Many rows may have changed at once (a close; a change made elsewhere): the
        board is read again from the store when next needed."""
        board = self._boards.pop(tournament_id, None)
        if board is not None:
            self._base[tournament_id] = self._base.get(tournament_id, 0) + board.version + 1
        if tournament_id in self._loading:  # a load in progress may have missed it
            self._loading[tournament_id] = {}
            self._stale.add(tournament_id)

    def reset(self) -> None:
        """Every board is read again when next needed (notices may have been missed)."""
        for tournament_id in list(self._boards):
            self.tournament_changed(tournament_id)

    def advance(self) -> list[int]:
        """Move every board's clock to now; the tournaments whose order changed (running
        games passing finished ones, deadlines reached)."""
        now = epoch_ms(self.now())
        return [tid for tid, b in self._boards.items() if b.advance(max(now, b.now))]

    def _upsert(self, tournament_id: int, entry_id: int, row: EntryRow) -> None:
        board = self._boards.get(tournament_id)
        if board is not None:
            board.upsert(row)
            self._by_entry[entry_id] = row
        elif tournament_id in self._loading:
            self._loading[tournament_id][row.player] = row

    # -- reading -------------------------------------------------------------
    async def window(
        self, tournament_id: int, top: int = TOP, around: int = AROUND, player: str | None = None
    ) -> View:
        """The first `top` rows and `around` rows each side of `player`'s own row."""
        board, final = await self._board(tournament_id)
        return self._view(tournament_id, board, final, *board.window_and_gap(top, around, player))

    async def windows(
        self, tournament_id: int, wanted: list[tuple[int, int, str | None]]
    ) -> dict[tuple[int, int, str | None], View]:
        """Several windows (top, around, player) of one tournament at one moment."""
        board, final = await self._board(tournament_id)
        return self._windows(tournament_id, board, final, wanted)

    def windows_now(
        self, tournament_id: int, wanted: list[tuple[int, int, str | None]]
    ) -> dict[tuple[int, int, str | None], View] | None:
        """`windows` without waiting, or None when the table or the tournament must be
        read from the store first (then ask `windows`)."""
        t = self.catalogue.cached(tournament_id)
        board = self._boards.get(tournament_id)
        if t is None or board is None:
            return None
        board.advance(max(epoch_ms(self.now()), board.now))  # a clock stepping back waits
        return self._windows(tournament_id, board, t.status == CLOSED, wanted)

    def _windows(
        self,
        tournament_id: int,
        board: Leaderboard,
        final: bool,
        wanted: list[tuple[int, int, str | None]],
    ) -> dict[tuple[int, int, str | None], View]:
        return {
            key: self._view(tournament_id, board, final, *board.window_and_gap(*key))
            for key in wanted
        }

    async def page(self, tournament_id: int, offset: int, limit: int) -> View:
        """The rows ranked offset+1 .. offset+limit."""
        board, final = await self._board(tournament_id)
        return self._view(tournament_id, board, final, board.page(offset, limit))

    async def table(self, tournament_id: int) -> tuple[list[Standing], bool]:
        """Every row and whether they are final."""
        board, final = await self._board(tournament_id)
        return board.rows(), final

    def _view(
        self,
        tid: int,
        board: Leaderboard,
        final: bool,
        rows: list[Standing],
        gap: int | None = None,
    ) -> View:
        version = self._base.get(tid, 0) + board.version
        return View(rows, board.total, version, final, board.now, gap)

    async def _board(self, tournament_id: int) -> tuple[Leaderboard, bool]:
        t = await self.catalogue.find(tournament_id)
        board = self._boards.get(t.id)
        if board is None:
            board = await self._load(t.id)
        board.advance(max(epoch_ms(self.now()), board.now))  # a clock stepping back waits
        return board, t.status == CLOSED

    async def _load(self, tournament_id: int) -> Leaderboard:
        async with self._locks.setdefault(tournament_id, asyncio.Lock()):
            board = self._boards.get(tournament_id)
            if board is not None:
                return board
            while True:
                self._loading[tournament_id] = {}
                self._stale.discard(tournament_id)
                try:
                    entries = await self.store.entries(tournament_id)
                    board = Leaderboard(epoch_ms(self.now()))
                    for e in entries:
                        row = row_of_entry(e)
                        board.upsert(row)
                        self._by_entry[e.id] = row
                        self._progress[e.id] = (e.seq, e.status != PLAYING)
                    for row in self._loading[tournament_id].values():
                        board.upsert(row)  # changes made while the store was read
                finally:
                    del self._loading[tournament_id]
                if tournament_id not in self._stale:
                    self._boards[tournament_id] = board
                    # Versions grow across reloads, and start above any an earlier process
                    # (another node, before a restart) reached: clients compare them.
                    floor = epoch_ms(self.now()) * 1000
                    self._base[tournament_id] = max(self._base.get(tournament_id, 0), floor)
                    return board
