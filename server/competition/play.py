"""Playing: join (deal and start the clock), state, act, hint, and timing out a game.

An action is validated by the pure engine, appended durably by the store with the
entry's new summary (and, at a checkpoint, its log hash: live.CHECKPOINT), and only then
applied in memory and acknowledged with the exact log hash.

Several nodes may serve one database (docs/ARCHITECTURE.md, "Several nodes"): a game in
memory is then trusted only as far as its seq matches the log. The unique (entry, seq)
of the log is the fence: an append refused as a duplicate means another node moved the
game on, so it is reloaded from the log and the request judged again; a seq ahead of the
cached game reloads it first; `state` reads the entry's row first, then compares it with the
cached seq once no act of the game is in flight here (`_fresh`): a resume is never stale.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from server.audit import receipts
from server.competition.admission import admit
from server.competition.catalogue import Catalogue
from server.competition.club_events import ClubEvents
from server.competition.errors import CompetitionError
from server.competition.live_game import LiveGame, Snapshot, snapshot, summary_of
from server.competition.live_games import LiveGames
from server.competition.tournament import EntryChanged, Joined, Moved
from server.domain import timing
from server.domain.model import (
    DuplicateAction,
    EntryExists,
    EntryInfo,
    PlayerInfo,
    Status,
    TournamentClosed,
    TournamentInfo,
    canonical_json,
)
from server.games import RULES
from server.games.base import MalformedAction, action_data
from server.store.repository import Store

PLAYING, TIMED_OUT = Status.PLAYING, Status.TIMED_OUT


class Play:
    """Every request of a player about their own game."""

    def __init__(
        self,
        store: Store,
        catalogue: Catalogue,
        games: LiveGames,
        now: Callable[[], datetime],
        club_events: ClubEvents,
    ) -> None:
        self.store = store
        self.catalogue = catalogue
        self.games = games
        self.now = now
        self.club_events = club_events

    async def join(
        self,
        player: PlayerInfo,
        tournament_id: int,
        code: str | None = None,
        club: int | None = None,
    ) -> Snapshot:
        """Deal and start the clock on the first join; later joins resume. `code`: the
        entry code, `club`: the club a battle's entry plays for (v1.4)."""
        runtime = await self.catalogue.runtime(tournament_id)
        t = runtime.info
        if runtime.game(player.id) is not None or (
            await self.store.entry(t.id, player.id) is not None
        ):  # resuming is always allowed, before any check (no entry code needed or counted)
            return await self.state(player, tournament_id)
        now = self.now()
        try:
            self.catalogue.check_playable(runtime)
            if now > t.join_until:
                raise CompetitionError(
                    "closed",
                    f"entries closed at {timing.iso(t.join_until)}",
                    reason="entries_closed",
                    params={"at": timing.iso(t.join_until)},
                )
            playing_for = await self.club_events.entry_club(player, t, code, club)  # v1.4
            await admit(self.store, player, t, now)  # refused when an entry condition is unmet
        except CompetitionError:
            if await self.store.entry(t.id, player.id) is not None:
                return await self.state(player, tournament_id)  # joined meanwhile: resume
            raise
        rules = RULES[t.game]
        state = rules.new_game(
            await self.catalogue.seed(t.id),
            rules.parse_options(t.options),
            player_id=player.id,
            deal_attempt=t.deal_attempt,
        )
        deadline = timing.deadline(now, t.time_limit_s, t.ends_at)
        head = receipts.genesis(t.commitment, player.id)
        summary = summary_of(state, state.status, 0, 0, head.hex())
        async with runtime.load_lock(player.id):
            try:
                entry: EntryInfo | None = await self.store.create_entry(
                    t.id, player, now, deadline, summary, playing_for
                )
            except EntryExists:
                entry = None  # joined before (or concurrently): resume that game
            except TournamentClosed:  # closed meanwhile (perhaps by another node)
                await self.catalogue.reload(t.id)
                raise CompetitionError(
                    "closed",
                    f"tournament {t.id} is closed",
                    reason="tournament_closed",
                    params={"id": t.id},
                ) from None
            if entry is not None:  # the game just dealt is the one in memory
                runtime.keep(LiveGame(entry, rules, state, [], 0, summary.figures.status, 0, head))
        if entry is not None:
            self.catalogue.tournaments.receive(t.id, Joined(entry))
        return await self.state(player, tournament_id)

    async def state(self, player: PlayerInfo, tournament_id: int) -> Snapshot:
        """The player's game as it stands; `not_found` without an entry."""
        t = await self.catalogue.find(tournament_id)
        live = await self._fresh(t.id, player.id)
        return snapshot(t, live, [], self.now())

    async def _fresh(self, tournament_id: int, player_id: int) -> LiveGame:
        """The game with at least every action acknowledged before this call (several
        nodes only: another node may have moved it on). The log's seq is read first; an
        act of this game in flight here finishes before the cached seq is compared."""
        live = await self.games.get(tournament_id, player_id)
        if not self.store.shared:
            return live
        stored = await self.store.entry_seq(live.entry.id)
        if stored is None:
            return live
        async with live.lock:
            if live.seq >= stored and self.games.cached(tournament_id, player_id) is live:
                return live
            self.games.forget(live)
        return await self.games.get(tournament_id, player_id)

    async def act(
        self, player: PlayerInfo, tournament_id: int, seq: int, raw_action: Any
    ) -> Snapshot:
        """Validate, store durably, then apply and acknowledge one action."""
        runtime = self.catalogue.tournaments.get(tournament_id)
        if runtime is None:
            runtime = await self.catalogue.runtime(tournament_id)
        action, canonical = _parsed(runtime.info, raw_action)
        self.catalogue.check_playable(runtime)
        live = runtime.game(player.id) or await self.games.get(runtime.id, player.id)
        if seq > live.seq + 1 and self.store.shared:  # another node may have moved it on
            live = await self._reloaded(live)
        async with live.lock:
            t = runtime.info  # (it may have closed while we waited)
            if seq != live.seq + 1:
                return self._resent(t, live, seq, canonical)
            self.catalogue.check_playable(runtime)
            now = self.now()
            step = live.judge(action, canonical, now)
            try:  # (inline, not a coroutine of its own: every action passes here)
                await self.store.append(
                    t.id, live.entry.id, step.seq, step.at_ms, step.canonical, step.summary
                )
                stored = True
            except Exception as exc:
                stored = await self._unstored(t, live, exc)
            if stored:
                live.advance(step)
        if not stored:  # another node stored this seq first: judge it again
            live = await self._reloaded(live)
            async with live.lock:
                return self._resent(t, live, seq, canonical)
        runtime.receive(Moved(live))
        return snapshot(t, live, step.events, now)

    async def _unstored(self, t: TournamentInfo, live: LiveGame, exc: Exception) -> bool:
        """The step's append failed with `exc`: False when another node stored that seq
        first; `closed` when the tournament closed meanwhile; else `exc` again, the game
        forgotten (stored or not is unknown: rebuilt from the log when next asked)."""
        if isinstance(exc, DuplicateAction):
            return False
        if isinstance(exc, TournamentClosed):  # closed by another process: learn it now;
            await self.catalogue.reload(t.id)  # the games are rebuilt with their final status
            self.games.forget_tournament(t.id)
            raise CompetitionError(
                "closed",
                f"tournament {t.id} is closed",
                reason="tournament_closed",
                params={"id": t.id},
            ) from None
        self.games.forget(live)
        raise exc

    async def _reloaded(self, live: LiveGame) -> LiveGame:
        self.games.forget(live)
        return await self.games.get(live.entry.tournament_id, live.entry.player_id)

    def _resent(self, t: TournamentInfo, live: LiveGame, seq: int, canonical: str) -> Snapshot:
        """A resend of an acknowledged action answers as a duplicate; any other seq is
        `out_of_sync` carrying the expected seq."""
        if 1 <= seq <= live.seq and live.actions[seq - 1] == canonical:
            return snapshot(t, live, [], self.now(), duplicate=True)
        expected = live.seq + 1
        raise CompetitionError(
            "out_of_sync",
            f"expected seq {expected}",
            params={"seq": expected},
            seq=expected,
            expected=expected,
        )

    async def hint(self, player: PlayerInfo, tournament_id: int) -> tuple[Any, bool]:
        """(suggested action or None, no_moves) for games whose options allow hints."""
        t = await self.catalogue.find(tournament_id)
        rules = RULES[t.game]
        if not rules.hints_allowed(rules.parse_options(t.options)):
            raise CompetitionError(
                "forbidden", f"tournament {t.id} gives no hints", reason="no_hints"
            )
        live = await self._fresh(t.id, player.id)
        action = live.state.hint()
        return (None if action is None else action_data(action)), (action is None)

    async def expire(self, e: EntryInfo) -> None:
        """A game whose deadline passed: timed out at its deadline, once (a conditional
        update: an action in flight, or another node, may have ended it first)."""
        time_ms = timing.ms_between(e.started_at, e.deadline)
        live = self.games.by_entry(e.tournament_id, e.id)
        if live is None:
            summary = await self.store.time_out_entry(e.id, time_ms)
        else:
            async with live.lock:
                summary = await self.store.time_out_entry(e.id, time_ms)
                if summary is not None and summary.seq == live.seq:
                    live.time_out(time_ms)
                elif summary is not None:
                    self.games.forget(live)  # moved on elsewhere: rebuilt when needed
        if summary is not None:
            change = EntryChanged(e.id, summary.seq, summary.figures)
            self.catalogue.tournaments.receive(e.tournament_id, change)


def _parsed(t: TournamentInfo, raw_action: Any) -> tuple[Any, str]:
    """The action parsed by the game's rules, and its canonical text; `bad_request`."""
    try:
        action = RULES[t.game].parse_action(raw_action)
    except MalformedAction as exc:
        raise CompetitionError("bad_request", exc.message, reason=exc.reason) from None
    return action, canonical_json(action_data(action))
