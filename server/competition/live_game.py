"""A live game: one entry's game in memory (state, log, receipt head, lock) and its
transitions, and what its player sees of it (`Snapshot`). The games in memory are kept
by their tournament's runtime object and rebuilt from the log (live_games.py).

A game in memory can always be dropped: everything in it follows from the store.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, NamedTuple

from server.audit import receipts
from server.competition.errors import CompetitionError
from server.domain import timing
from server.domain.model import EntryInfo, Figures, Status, Summary, TournamentInfo
from server.games import GameRules
from server.games.base import ActionError, GameState

PLAYING, TIMED_OUT = Status.PLAYING, Status.TIMED_OUT
MAX_ACTIONS = 10_000  # accepted actions a game holds at most (COMPETITION.md "Limits")

CHECKPOINT = 32
"""The entry's row caches its chain head (entries.log_hash, with log_seq) only at a
checkpoint: the join (seq 0), every CHECKPOINT-th action, and the action that ends the
game. Writing the 64 hex digits with every action was a measurable part of the writers'
cost per action; in exchange a rebuild (and the log root at the close) re-hashes at most
the CHECKPOINT - 1 actions after the last checkpoint. The game in memory always keeps
the exact head, which every acknowledgement carries."""


class Step(NamedTuple):
    """One action judged against a game: what the game becomes once it is stored."""

    seq: int
    canonical: str  # the action's canonical text (what the log stores and hashes)
    state: GameState[Any]
    events: list[dict[str, Any]]
    at_ms: int
    status: Status
    time_ms: int
    head: bytes
    log_hash: str  # head.hex()
    summary: Summary  # what the entry's row stores with the action


@dataclass(slots=True)
class LiveGame:
    """One entry's game in memory. Its fields change only through its methods: `judge`
    (an action, unchanged game), `advance` (the action stored) and `time_out`."""

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
    seq: int = 0  # len(actions), kept by `advance` (read several times per action)

    def __post_init__(self) -> None:
        self.started_iso = timing.iso(self.entry.started_at)
        self.deadline_iso = timing.iso(self.entry.deadline)
        self.log_hash = self.head.hex()
        self.seq = len(self.actions)

    def judge(self, action: Any, canonical: str, now: datetime) -> Step:
        """The next action (`canonical` its text) at `now`, applied to a copy: the step
        to store, or CompetitionError (`closed` past the deadline, `illegal_action` for a
        game over, an action the rules refuse, or one past MAX_ACTIONS). Nothing changes."""
        if self.status == TIMED_OUT or (self.status == PLAYING and now >= self.entry.deadline):
            raise CompetitionError(
                "closed", "the game's deadline has passed", reason="deadline_passed"
            )
        if self.status != PLAYING:
            raise CompetitionError(
                "illegal_action", f"the game is over ({self.status})", reason="game_over"
            )
        if self.seq >= MAX_ACTIONS - 1 and getattr(action, "kind", None) != "resign":
            raise CompetitionError(
                "illegal_action",
                f"a game holds at most {MAX_ACTIONS:,} actions: after {self.seq:,} only "
                "resign is accepted",
                reason="action_limit",
                params={"max": MAX_ACTIONS},
            )
        try:
            state, events = self.state.apply(action)
        except ActionError as exc:
            raise CompetitionError("illegal_action", exc.message, reason=exc.reason) from None
        seq = self.seq + 1
        at_ms = max(self.last_at_ms, timing.ms_between(self.entry.started_at, now))
        status = state.status
        time_ms = at_ms if status != PLAYING else 0
        head = receipts.step(self.head, seq, at_ms, canonical)
        log_hash = head.hex()
        summary = summary_of(state, status, time_ms, seq, log_hash)
        return Step(seq, canonical, state, events, at_ms, status, time_ms, head, log_hash, summary)

    def advance(self, step: Step) -> None:
        """The step is stored: the game takes it."""
        self.state, self.status, self.time_ms = step.state, step.status, step.time_ms
        self.last_at_ms, self.head, self.log_hash = step.at_ms, step.head, step.log_hash
        self.actions.append(step.canonical)
        self.seq = step.seq

    def time_out(self, time_ms: int) -> None:
        """The store timed the game out after `time_ms` (its deadline or the close)."""
        self.status, self.time_ms = TIMED_OUT, time_ms

    def figures(self) -> Figures:
        """Its figures now: what its entry's row holds once its last action is stored."""
        return figures_of_state(self.state, self.status, self.time_ms)


def figures_of_state(state: GameState[Any], status: Status, time_ms: int) -> Figures:
    """The figures of a game in `state` (the status is given: a timeout is not the
    state's own)."""
    return Figures(status, state.progress, state.resets, state.score, time_ms)


def summary_of(
    state: GameState[Any], status: Status, time_ms: int, seq: int, log_hash: str
) -> Summary:
    """What the entry's row stores of a game in `state` after `seq` actions (the status
    is given: a timeout is not the state's own). `log_hash` is the exact head after
    `seq`; the summary carries it only at a checkpoint (CHECKPOINT), "" otherwise."""
    if seq % CHECKPOINT and status == PLAYING:
        log_hash = ""  # not a checkpoint: the row keeps its cached head
    return Summary(figures_of_state(state, status, time_ms), seq, log_hash)


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
