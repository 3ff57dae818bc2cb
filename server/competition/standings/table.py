"""The live standings of one tournament: its `Leaderboard`, read from the store when
first needed and updated incrementally with every change of an entry (COMPETITION.md);
running games rank on their time so far.

`version` grows with every change of the standings, including across reloads, and
starts above any an earlier process reached, so a client can order what it receives.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator, Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any, NamedTuple

from server.competition import battles
from server.competition.standings.disqualified import adjust
from server.competition.standings.leaderboard import EntryRow, Leaderboard
from server.domain.model import EntryInfo, Figures, Status
from server.domain.ranking import Row, Standing
from server.domain.timing import epoch_ms
from server.store import fairplay as fair_store
from server.store import par as par_store
from server.store.repository import Store

if TYPE_CHECKING:
    from server.competition.live_game import LiveGame

PLAYING = Status.PLAYING
_PAGE, _PAGE_MAX = 32, 1024  # rows a battle's club table reads first, and at most at a time
WindowKey = tuple[int, int, str | None]  # (top, around, player)


class View(NamedTuple):
    """Rows of a tournament's standings as they stand at `now_ms`."""

    rows: list[Row]  # a disqualified row (fair play) is Unranked, after the ranked ones
    total: int
    version: int
    final: bool
    now_ms: int
    gap_after: int | None = None  # rows left out after the first `gap_after` rows
    # after the close: each player's par (progress, resets) as far as computed (rows
    # carry `par`, null for one not computed yet); None before the close
    par: Mapping[str, tuple[int, int]] | None = None
    # v1.4, a team battle only: each player's club (rows carry `club`) and the clubs'
    # table (the message's `clubs`); None for a tournament that is no battle
    club_of: Mapping[str, int | None] | None = None
    clubs: list[dict[str, Any]] | None = None


def entry_row(e: EntryInfo, figures: Figures) -> EntryRow:
    """The entry's row with these figures (its own as stored, or its game's now)."""
    started, deadline = epoch_ms(e.started_at), epoch_ms(e.deadline)
    return EntryRow(e.player_name, figures, started, deadline, e.player_bot)


class Table:
    """One tournament's leaderboard and what a load in progress must not miss."""

    def __init__(
        self,
        tournament_id: int,
        store: Store,
        now: Callable[[], datetime],
        battle: Mapping[str, Any] | None = None,
    ) -> None:
        self.tournament_id = tournament_id
        self.battle = battle  # v1.4: a team battle's {"clubs", "counted"}
        self.named: battles.Named | None = None  # its clubs and their names, as read
        self.club_of: dict[str, int | None] = {}  # a battle's: player name -> club
        self._clubs: tuple[int, list[dict[str, Any]]] | None = None  # (version, table)
        self.store = store
        self.now = now
        self.board: Leaderboard | None = None
        self.base = 0  # version offset of a reloaded board
        self._loading: dict[str, EntryRow] | None = None  # changes seen during a load
        self._stale = False  # the load in progress was overtaken by a change of many rows
        self._lock = asyncio.Lock()
        self._rows: dict[int, EntryRow] = {}  # the rows of the board, by entry id
        self._progress: dict[int, tuple[int, bool]] = {}  # entry -> (seq, ended) known
        self.disqualified: dict[str, str] = {}  # fair play: player name -> reason, as read
        self.par: dict[str, tuple[int, int]] = {}  # par: player name -> figures, as read

    @property
    def watched(self) -> bool:
        """Whether the table is in memory or being read (else changes wait for the read)."""
        return self.board is not None or self._loading is not None

    # -- changes -------------------------------------------------------------
    def entry_joined(self, entry: EntryInfo) -> bool:
        if not self.watched:
            return False
        self._progress[entry.id] = (entry.seq, entry.figures.status != PLAYING)
        if self.battle is not None:
            self.club_of[entry.player_name] = entry.club_id
        return self._upsert(entry.id, entry_row(entry, entry.figures))

    def game_moved(self, live: LiveGame) -> bool:
        if self.board is None and self._loading is None:  # not watched (once per action)
            return False
        self._progress[live.entry.id] = (live.seq, live.status != PLAYING)
        return self._upsert(live.entry.id, entry_row(live.entry, live.figures()))

    def figures_changed(self, entry_id: int, seq: int, figures: Figures) -> bool:
        """An entry's row now holds these figures after `seq` actions (a timeout; a
        change another node made); whether it was news (figures older than what is known
        here are ignored: notices may arrive after this node's own later change)."""
        step = (seq, figures.status != PLAYING)
        if step <= self._progress.get(entry_id, (-1, False)):
            return False
        old = self._rows.get(entry_id)
        if old is None:
            if self.watched:
                self.reread()  # an entry this board never saw
            return True
        self._progress[entry_id] = step
        self._upsert(entry_id, old._replace(figures=figures))
        return True

    def knows(self, entry_id: int) -> bool:
        return entry_id in self._rows

    def reread(self) -> None:
        """Many rows may have changed at once (a close; a change made elsewhere): the
        board is read again from the store when next needed."""
        if self.board is not None:
            self.base += self.board.version + 1
            self.board = None
        if self._loading is not None:  # a load in progress may have missed it
            self._loading = {}
            self._stale = True

    def advance(self) -> bool:
        """Move the board's clock to now; whether its order changed."""
        board = self.board
        return board is not None and board.advance(max(epoch_ms(self.now()), board.now))

    def _upsert(self, entry_id: int, row: EntryRow) -> bool:
        if self.board is not None:
            self.board.upsert(row)
            self._rows[entry_id] = row
        elif self._loading is not None:
            self._loading[row.player] = row
        return True

    # -- reading -------------------------------------------------------------
    def view(
        self, board: Leaderboard, final: bool, rows: list[Standing], gap: int | None = None
    ) -> View:
        shown, gap = adjust(self.disqualified, board, rows, gap)  # fair play
        par = self.par if final else None
        version = self.base + board.version
        if self.named is None:
            return View(shown, board.total, version, final, board.now, gap, par)
        clubs = self._club_table(board, version)
        return View(shown, board.total, version, final, board.now, gap, par, self.club_of, clubs)

    def _club_table(self, board: Leaderboard, version: int) -> list[dict[str, Any]]:
        """A battle's clubs' table, made once per version of the standings (ranks change
        only with it): the rows read best first a page at a time (pages doubling) until
        every club has its counted ranks (club_score.table), each page's ranks without
        the disqualified (`adjust`)."""
        if self._clubs is not None and self._clubs[0] == version:
            return self._clubs[1]
        assert self.battle is not None and self.named is not None
        out = self.disqualified
        ranked = board.total - sum(board.get(p) is not None for p in out)

        def rows() -> Iterator[tuple[int | None, int | None]]:
            offset, size = 0, _PAGE
            while offset < board.total:
                for r in adjust(out, board, board.page(offset, size))[0]:
                    if r.rank is not None:
                        yield r.rank, self.club_of.get(r.player)
                offset, size = offset + size, min(2 * size, _PAGE_MAX)

        table = battles.clubs_of(self.battle, self.named, rows(), ranked)
        self._clubs = (version, table)
        return table

    def rows(self, board: Leaderboard) -> list[Row]:
        """Every row as readers see them (the disqualified unranked, at the end)."""
        return adjust(self.disqualified, board, board.rows())[0]

    def windows(
        self, board: Leaderboard, final: bool, wanted: list[WindowKey]
    ) -> dict[WindowKey, View]:
        return {key: self.view(board, final, *board.window_and_gap(*key)) for key in wanted}

    def current(self) -> Leaderboard | None:
        """The board at now, or None when it must be read first (`loaded`)."""
        board = self.board
        if board is not None:
            board.advance(max(epoch_ms(self.now()), board.now))  # a clock stepping back waits
        return board

    async def loaded(self) -> Leaderboard:
        """The board at now, read from the store when not in memory."""
        board = self.current() or await self._load()
        board.advance(max(epoch_ms(self.now()), board.now))
        return board

    async def _load(self) -> Leaderboard:
        async with self._lock:
            if self.board is not None:
                return self.board
            while True:
                self._loading, self._stale = {}, False
                try:
                    entries = await self.store.entries(self.tournament_id)
                    reasons = await fair_store.reasons(self.store, self.tournament_id)
                    named = await battles.named_of(self.store, self.battle)  # v1.4
                    pars = await par_store.figures(self.store, self.tournament_id)
                    board = Leaderboard(epoch_ms(self.now()))
                    for e in entries:
                        row = entry_row(e, e.figures)
                        board.upsert(row)
                        self._rows[e.id] = row
                        self._progress[e.id] = (e.seq, e.figures.status != PLAYING)
                    for row in self._loading.values():
                        board.upsert(row)  # changes made while the store was read
                finally:
                    self._loading = None
                if not self._stale:
                    self.board, self.disqualified = board, dict(reasons)
                    if named is not None:
                        self.named, self._clubs = named, None
                        self.club_of.update((e.player_name, e.club_id) for e in entries)
                    self.par = {e.player_name: pars[e.id] for e in entries if e.id in pars}
                    # Versions grow across reloads, and start above any an earlier process
                    # (another node, before a restart) reached: clients compare them.
                    self.base = max(self.base, epoch_ms(self.now()) * 1000)
                    return board
