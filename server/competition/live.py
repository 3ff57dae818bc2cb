"""Live games: one entry's game in memory (state, log, receipt head, lock) and the cache
of them, rebuilt from (seed, options, action log) whenever absent.

A game in memory can always be dropped: everything in it follows from the store.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from server.audit import receipts
from server.competition.catalogue import Catalogue
from server.competition.errors import CompetitionError
from server.domain import timing
from server.domain.model import EntryInfo, Status, Summary, TournamentInfo, canonical_json
from server.games import RULES, GameRules
from server.games.base import GameState
from server.store.repository import Store

PLAYING, TIMED_OUT = Status.PLAYING, Status.TIMED_OUT

CHECKPOINT = 32
"""The entry's row caches its chain head (entries.log_hash, with log_seq) only at a
checkpoint: the join (seq 0), every CHECKPOINT-th action, and the action that ends the
game. Writing the 64 hex digits with every action was a measurable part of the writers'
cost per action; in exchange a rebuild (and the log root at the close) re-hashes at most
the CHECKPOINT - 1 actions after the last checkpoint. The game in memory always keeps
the exact head, which every acknowledgement carries."""


@dataclass(slots=True)
class LiveGame:
    """One entry's game in memory."""

    entry: EntryInfo  # the row as loaded: its log_hash is a cached, older head (use head)
    rules: GameRules[Any, Any]
    state: GameState[Any]
    actions: list[str]  # canonical JSON texts (plain strings: nothing for the GC to scan)
    last_at_ms: int
    status: Status  # the state's own, or TIMED_OUT
    time_ms: int
    head: bytes  # samedeal-log/1 head after `seq` actions
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    started_iso: str = ""
    deadline_iso: str = ""
    log_hash: str = ""  # head.hex(), made once per action

    def __post_init__(self) -> None:
        self.started_iso = timing.iso(self.entry.started_at)
        self.deadline_iso = timing.iso(self.entry.deadline)
        self.log_hash = self.head.hex()

    @property
    def seq(self) -> int:
        return len(self.actions)


def summary_of(
    state: GameState[Any], status: Status, time_ms: int, seq: int, log_hash: str
) -> Summary:
    """What the entry's row stores of a game in `state` after `seq` actions (the status
    is given: a timeout is not the state's own). `log_hash` is the exact head after
    `seq`; the summary carries it only at a checkpoint (CHECKPOINT), "" otherwise."""
    if seq % CHECKPOINT and status == PLAYING:
        log_hash = ""  # not a checkpoint: the row keeps its cached head
    return Summary(status, state.progress, state.resets, state.score, time_ms, seq, log_hash)


class Snapshot(NamedTuple):
    """What a player sees of their game at one moment (PROTOCOL.md STATE)."""

    tournament_id: int
    game: str
    seq: int
    status: Status
    started_iso: str
    deadline_iso: str
    time_ms: int
    progress: dict[str, int]
    view: dict[str, Any]
    events: list[dict[str, Any]]
    log_hash: str
    duplicate: bool = False


def snapshot(
    t: TournamentInfo,
    live: LiveGame,
    events: list[dict[str, Any]],
    now: Any,
    duplicate: bool = False,
) -> Snapshot:
    """The game as its player sees it at `now` (a running game past its deadline shows
    as timed out at the deadline)."""
    e = live.entry
    if live.status == PLAYING:
        if now >= e.deadline:
            time_ms, status = timing.ms_between(e.started_at, e.deadline), TIMED_OUT
        else:
            time_ms, status = timing.ms_between(e.started_at, now), PLAYING
    else:
        time_ms, status = live.time_ms, live.status
    return Snapshot(
        t.id,
        t.game,
        live.seq,
        status,
        live.started_iso,
        live.deadline_iso,
        time_ms,
        live.state.progress_view(),
        live.state.view(),
        events,
        live.log_hash,
        duplicate,
    )


class LiveGames:
    """The games in memory, by entry; one load at a time per (tournament, player)."""

    def __init__(self, store: Store, catalogue: Catalogue) -> None:
        self.store = store
        self.catalogue = catalogue
        self._games: dict[int, LiveGame] = {}  # by entry id
        self._entry_ids: dict[tuple[int, int], int] = {}  # (tournament, player) -> entry id
        self._load_locks: dict[tuple[int, int], asyncio.Lock] = {}

    def __len__(self) -> int:
        return len(self._games)

    def cached(self, tournament_id: int, player_id: int) -> LiveGame | None:
        entry_id = self._entry_ids.get((tournament_id, player_id))
        return None if entry_id is None else self._games.get(entry_id)

    def by_entry(self, entry_id: int) -> LiveGame | None:
        return self._games.get(entry_id)

    def in_tournament(self, tournament_id: int) -> list[LiveGame]:
        return [g for g in self._games.values() if g.entry.tournament_id == tournament_id]

    def load_lock(self, tournament_id: int, player_id: int) -> asyncio.Lock:
        """The lock under which the (tournament, player) game is loaded or first dealt."""
        return self._load_locks.setdefault((tournament_id, player_id), asyncio.Lock())

    def keep(self, live: LiveGame) -> None:
        e = live.entry
        self._games[e.id] = live
        self._entry_ids[(e.tournament_id, e.player_id)] = e.id

    def forget(self, live: LiveGame) -> None:
        """Drop one game (it is rebuilt from the log when next needed)."""
        key = (live.entry.tournament_id, live.entry.player_id)
        if self._entry_ids.get(key) == live.entry.id:
            del self._entry_ids[key]
        self._games.pop(live.entry.id, None)

    def forget_tournament(self, tournament_id: int) -> None:
        for key, entry_id in list(self._entry_ids.items()):
            if key[0] == tournament_id:
                self._games.pop(entry_id, None)
                del self._entry_ids[key]

    async def get(self, tournament_id: int, player_id: int) -> LiveGame:
        """The game in memory, rebuilt from the stored log if needed; `not_found` when the
        player has no entry."""
        live = self.cached(tournament_id, player_id)
        if live is not None:
            return live
        async with self.load_lock(tournament_id, player_id):
            live = self.cached(tournament_id, player_id)
            if live is not None:
                return live
            entry = await self.store.entry(tournament_id, player_id)
            if entry is None:
                raise CompetitionError("not_found", "no entry: join the tournament first")
            live = await self.rebuild(entry)
            self.keep(live)
            return live

    async def rebuild(self, entry: EntryInfo) -> LiveGame:
        """Replay the entry's stored log from the deal; the chain is hashed on from the
        head the row caches (after log_seq actions, the last checkpoint), or from the
        start when the row holds none (written before receipts)."""
        t = await self.catalogue.find(entry.tournament_id)
        rules = RULES[t.game]
        logged = await self.store.actions(entry.id)
        state = rules.replay(
            await self.catalogue.seed(t.id),
            rules.parse_options(t.options),
            [a.action for a in logged],
            player_id=entry.player_id,
            deal_attempt=t.deal_attempt,
        )
        status = TIMED_OUT if entry.status == TIMED_OUT else state.status
        last_at = logged[-1].at_ms if logged else 0
        time_ms = entry.time_ms if status == TIMED_OUT else (last_at if status != PLAYING else 0)
        actions = [canonical_json(a.action) for a in logged]
        if entry.log_hash and entry.log_seq <= len(logged):
            head, done = bytes.fromhex(entry.log_hash), entry.log_seq
        else:
            head, done = receipts.genesis(t.commitment, entry.player_id), 0
        for a, text in zip(logged[done:], actions[done:], strict=True):
            head = receipts.step(head, a.seq, a.at_ms, text)
        return LiveGame(entry, rules, state, actions, last_at, status, time_ms, head)
