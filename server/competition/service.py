"""Tournaments as a service: players, lifecycle, joining, acting, standings, reveal.

The only clock is `self.now()` (injectable for tests). Each accepted action is
validated by the pure engine, appended durably by the store, and only then
applied in memory and acknowledged. A game in memory can always be dropped: it
is rebuilt from (seed, options, action log) when next needed.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, NamedTuple

from server import rng
from server.audit.records import bundle_of, record_of, result_of
from server.competition.errors import CompetitionError
from server.domain import timing
from server.domain.model import (
    EntryExists,
    EntryInfo,
    NameTaken,
    NewTournament,
    PlayerInfo,
    Summary,
    TournamentClosed,
    TournamentInfo,
    canonical_json,
)
from server.domain.ranking import Result, Standing, standings
from server.games import RULES, GameRules
from server.games.base import ActionError, GameState, MalformedAction, Status, action_data
from server.store.repository import Store

log = logging.getLogger("samedeal.competition")

NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")


def token_hash(token: str) -> str:
    """What the store keeps of a token: its SHA-256, hex."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


# Plain texts of the statuses the hot path compares (an enum's .value is a slow property).
PLAYING, TIMED_OUT = Status.PLAYING.value, Status.TIMED_OUT.value
_TEXT_OF = {status: status.value for status in Status}


def utcnow() -> datetime:
    """Now, in whole milliseconds (the precision records carry)."""
    return datetime.fromtimestamp(time.time_ns() // 1_000_000 / 1000, UTC)  # exact to the ms


@dataclass(frozen=True, slots=True)
class TournamentSpec:
    """What an operator asks for; validated by `create_tournament`."""

    name: str
    game: str
    options: dict[str, Any] | None
    ends_at: datetime
    starts_at: datetime | None = None
    time_limit_s: int | None = None
    join_until: datetime | None = None


@dataclass
class LiveGame:
    """One entry's game in memory, rebuilt from its log when absent."""

    entry: EntryInfo
    rules: GameRules[Any, Any]
    state: GameState[Any]
    actions: list[str]  # canonical JSON texts (plain strings: nothing for the GC to scan)
    last_at_ms: int
    status: str
    time_ms: int
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    started_iso: str = ""
    deadline_iso: str = ""

    def __post_init__(self) -> None:
        self.started_iso = timing.iso(self.entry.started_at)
        self.deadline_iso = timing.iso(self.entry.deadline)

    @property
    def seq(self) -> int:
        return len(self.actions)

    def summary(self) -> Summary:
        return summary_of(self.state, self.status, self.time_ms, self.seq)


def summary_of(state: GameState[Any], status: str, time_ms: int, seq: int) -> Summary:
    """What the entry's row stores of a game in `state` (the status is given: a timeout
    is not the state's own)."""
    return Summary(status, state.progress, state.resets, state.score, time_ms, seq)


class Snapshot(NamedTuple):
    """What a player sees of their game at one moment (PROTOCOL.md STATE)."""

    tournament_id: int
    game: str
    seq: int
    status: str
    started_iso: str
    deadline_iso: str
    time_ms: int
    progress: dict[str, int]
    view: dict[str, Any]
    events: list[dict[str, Any]]
    duplicate: bool = False


class Competition:
    """The server's business: every protocol request maps to one method here."""

    def __init__(self, store: Store, now: Callable[[], datetime] = utcnow) -> None:
        self.store = store
        self.now = now
        self._tournaments: dict[int, TournamentInfo] = {}
        self._seeds: dict[int, bytes] = {}
        self._games: dict[int, LiveGame] = {}  # by entry id
        self._entry_ids: dict[tuple[int, int], int] = {}  # (tournament, player) -> entry id
        self._load_locks: dict[tuple[int, int], asyncio.Lock] = {}
        self._closing: set[int] = set()
        self.on_standings_changed: Callable[[int], None] = lambda _tid: None
        self.on_closed: Callable[[int, str], None] = lambda _tid, _seed: None

    async def start(self) -> None:
        """Load tournaments (the tick's refresh); close those whose end passed while the
        server was down."""
        await self.tick()

    # -- players ---------------------------------------------------------
    async def register(self, name: str) -> tuple[PlayerInfo, str]:
        if not 1 <= len(name) <= 32 or not set(name) <= NAME_CHARS:
            raise CompetitionError("bad_request", "a name is 1-32 letters, digits, '_' or '-'")
        token = secrets.token_urlsafe(32)
        try:
            player = await self.store.create_player(name, token_hash(token), self.now())
        except NameTaken:
            raise CompetitionError("name_taken", f"the name {name!r} is taken") from None
        return player, token

    async def authenticate(self, token: str) -> PlayerInfo:
        digest = token_hash(token)
        player = await self.store.player_by_token_hash(digest)
        # The lookup is by hash; compare again in constant time before trusting it.
        if player is None or not hmac.compare_digest(digest, token_hash(token)):
            raise CompetitionError("unauthorized", "unknown token")
        return player

    # -- tournaments -----------------------------------------------------
    def tournaments(self) -> list[TournamentInfo]:
        return sorted(self._tournaments.values(), key=lambda t: t.id)

    async def tournament_summaries(self) -> list[TournamentInfo]:
        """Tournaments with their entrant counts (from the store)."""
        return await self.store.tournaments()

    def tournament(self, tournament_id: int) -> TournamentInfo:
        t = self._tournaments.get(tournament_id)
        if t is None:
            raise CompetitionError("not_found", f"no tournament {tournament_id}")
        return t

    async def find(self, tournament_id: int) -> TournamentInfo:
        """The tournament, from memory or (created by another process) from the store."""
        t = self._tournaments.get(tournament_id)
        if t is None:
            t = await self.store.tournament(tournament_id)
            if t is None:
                raise CompetitionError("not_found", f"no tournament {tournament_id}")
            self._tournaments[t.id] = t
        return t

    async def revealed_seed(self, t: TournamentInfo) -> str | None:
        """The seed once the tournament is closed; None before."""
        if t.status != "closed":
            return None
        return await self.store.secret_seed(t.id)

    async def create_tournament(self, spec: TournamentSpec, by: PlayerInfo) -> TournamentInfo:
        """An admin's request over the protocol."""
        if not by.admin:
            raise CompetitionError("forbidden", "only an operator creates tournaments")
        return await self.create_as_operator(spec)

    async def create_as_operator(self, spec: TournamentSpec) -> TournamentInfo:
        """Draw the seed, store it, publish its commitment (and prepare a proven deal)."""
        rules, options = self._check_spec(spec)
        now = self.now()
        starts_at = timing.now_ms_precision(spec.starts_at or now)
        ends_at = timing.now_ms_precision(spec.ends_at)
        join_until = timing.now_ms_precision(spec.join_until or ends_at)
        if ends_at <= starts_at or ends_at <= now:
            raise CompetitionError("bad_request", "ends_at must be after starts_at and now")
        if not starts_at <= join_until <= ends_at:
            raise CompetitionError("bad_request", "join_until must lie between start and end")
        seed = rng.new_seed()
        attempt, guaranteed, solution = await self._prepare_deal(rules, options, seed)
        new = NewTournament(
            name=spec.name,
            game=rules.name,
            options=options.model_dump(),
            commitment=rng.commitment(seed),
            seed_hex=seed.hex(),
            starts_at=starts_at,
            ends_at=ends_at,
            join_until=join_until,
            time_limit_s=spec.time_limit_s,
            status="open" if starts_at <= now else "scheduled",
            deal_attempt=attempt,
            guaranteed=guaranteed,
            solution=solution,
            created_at=now,
        )
        t = await self.store.create_tournament(new)
        self._tournaments[t.id] = t
        self._seeds[t.id] = seed
        log.info("tournament %s created (%s), commitment %s", t.id, t.game, t.commitment)
        return t

    def _check_spec(self, spec: TournamentSpec) -> tuple[GameRules[Any, Any], Any]:
        if not 1 <= len(spec.name) <= 100:
            raise CompetitionError("bad_request", "a tournament name is 1-100 characters")
        rules = RULES.get(spec.game)
        if rules is None:
            raise CompetitionError(
                "bad_request", f"unknown game {spec.game!r}; known: {sorted(RULES)}"
            )
        if spec.time_limit_s is not None and not 1 <= spec.time_limit_s <= 7 * 86400:
            raise CompetitionError("bad_request", "time_limit_s is 1 second to 7 days")
        try:
            return rules, rules.parse_options(spec.options)
        except ValueError as exc:
            raise CompetitionError("bad_request", str(exc)) from None

    async def _prepare_deal(
        self, rules: GameRules[Any, Any], options: Any, seed: bytes
    ) -> tuple[int, bool, list[dict[str, Any]] | None]:
        """The deal attempt to use (and its proof), for games that search one."""
        prepare = getattr(rules, "prepare_deal", None)
        if prepare is None:
            return 0, False, None
        return await asyncio.to_thread(prepare, seed, options)

    async def close_tournament(self, tournament_id: int, by: PlayerInfo | None = None) -> None:
        """Close now: end running games as timed out, freeze standings, reveal the seed."""
        if by is not None and not by.admin:
            raise CompetitionError("forbidden", "only an operator closes tournaments")
        t = await self.find(tournament_id)
        if t.status == "closed" or t.id in self._closing:
            raise CompetitionError("closed", f"tournament {t.id} is already closed")
        self._closing.add(t.id)
        try:
            await self._close(t)
        finally:
            self._closing.discard(t.id)

    async def _close(self, t: TournamentInfo) -> None:
        games = [g for g in self._games.values() if g.entry.tournament_id == t.id]
        for g in games:  # wait for acts in flight; new ones see _closing
            await g.lock.acquire()
        try:
            closed_at = max(self.now(), t.starts_at)
            timed_out = []
            for e in await self.store.entries(t.id):
                if e.status == "playing":
                    end = min(e.deadline, closed_at)
                    timed_out.append((e.id, timing.ms_between(e.started_at, end)))
            if not await self.store.close_tournament(t.id, closed_at, timed_out):
                timed_out = []  # closed meanwhile by another process: its figures stand
                self._forget_games(t.id)
            for entry_id, time_ms in timed_out:
                live = self._games.get(entry_id)
                if live is not None:
                    live.status, live.time_ms = TIMED_OUT, time_ms
        finally:
            for g in games:
                g.lock.release()
        refreshed = await self.store.tournament(t.id)
        assert refreshed is not None
        self._tournaments[t.id] = refreshed
        seed = await self.store.secret_seed(t.id)
        log.info("tournament %s closed; seed revealed", t.id)
        self.on_closed(t.id, seed)

    async def tick(self) -> None:
        """The lifecycle clock: open, close and time out what is due."""
        await self._refresh()
        now = self.now()
        for t in list(self._tournaments.values()):
            if t.status == "scheduled" and now >= t.starts_at:
                await self.store.set_status(t.id, "open")
                self._tournaments[t.id] = (await self.store.tournament(t.id)) or t
            if t.status != "closed" and now >= t.ends_at and t.id not in self._closing:
                await self.close_tournament(t.id)
        for e in await self.store.due_entries(now):
            await self._expire(e)

    async def _refresh(self) -> None:
        """Pick up tournaments created or closed by another process (the operator's
        command line) while this server runs."""
        for t in await self.store.tournaments():
            old = self._tournaments.get(t.id)
            self._tournaments[t.id] = t
            closed_elsewhere = old is not None and old.status != "closed" and t.status == "closed"
            if closed_elsewhere and t.id not in self._closing:
                self._forget_games(t.id)  # rebuilt from the store, with their final status
                self.on_closed(t.id, await self.store.secret_seed(t.id))

    def _forget(self, live: LiveGame) -> None:
        key = (live.entry.tournament_id, live.entry.player_id)
        if self._entry_ids.get(key) == live.entry.id:
            del self._entry_ids[key]
        self._games.pop(live.entry.id, None)

    def _forget_games(self, tournament_id: int) -> None:
        for key, entry_id in list(self._entry_ids.items()):
            if key[0] == tournament_id:
                self._games.pop(entry_id, None)
                del self._entry_ids[key]

    async def _expire(self, e: EntryInfo) -> None:
        """A game whose deadline passed: timed out at its deadline."""
        live = await self._live(e.tournament_id, e.player_id)
        async with live.lock:
            if live.status != PLAYING:
                return
            live.status = TIMED_OUT
            live.time_ms = timing.ms_between(e.started_at, e.deadline)
            await self.store.update_entry(e.id, live.summary())
        self.on_standings_changed(e.tournament_id)

    # -- playing ---------------------------------------------------------
    async def join(self, player: PlayerInfo, tournament_id: int) -> Snapshot:
        """Deal and start the clock on the first join; later joins resume."""
        t = await self.find(tournament_id)
        key = (t.id, player.id)
        if key in self._entry_ids:
            return await self.state(player, tournament_id)
        now = self.now()
        try:
            self._check_playable(t)
            if now > t.join_until:
                raise CompetitionError("closed", f"entries closed at {timing.iso(t.join_until)}")
        except CompetitionError:
            if await self.store.entry(t.id, player.id) is not None:
                return await self.state(player, tournament_id)  # resuming is always allowed
            raise
        rules = RULES[t.game]
        seed = await self._seed(t.id)
        state = rules.new_game(
            seed, rules.parse_options(t.options), player_id=player.id, deal_attempt=t.deal_attempt
        )
        deadline = timing.deadline(now, t.time_limit_s, t.ends_at)
        summary = summary_of(state, state.status.value, 0, 0)
        async with self._load_locks.setdefault(key, asyncio.Lock()):
            try:
                entry = await self.store.create_entry(t.id, player, now, deadline, summary)
            except EntryExists:
                entry = None  # joined before (or concurrently): resume that game
            if entry is not None:  # the game just dealt is the one in memory
                live = LiveGame(entry, rules, state, [], 0, summary.status, 0)
                self._games[entry.id] = live
                self._entry_ids[key] = entry.id
        if entry is not None:
            self.on_standings_changed(t.id)
        return await self.state(player, tournament_id)

    async def state(self, player: PlayerInfo, tournament_id: int) -> Snapshot:
        t = await self.find(tournament_id)
        live = await self._live(t.id, player.id)
        return self._snapshot(t, live, [])

    async def act(
        self, player: PlayerInfo, tournament_id: int, seq: int, raw_action: Any
    ) -> Snapshot:
        """Validate, store durably, then apply and acknowledge one action."""
        t = self._tournaments.get(tournament_id) or await self.find(tournament_id)
        rules = RULES[t.game]
        try:
            action = rules.parse_action(raw_action)
        except MalformedAction as exc:
            raise CompetitionError("bad_request", exc.message) from None
        self._check_playable(t)
        live = self._cached(t.id, player.id) or await self._live(t.id, player.id)
        async with live.lock:
            canonical = canonical_json(action_data(action))
            if seq != live.seq + 1:
                if 1 <= seq <= live.seq and live.actions[seq - 1] == canonical:
                    return self._snapshot(t, live, [], duplicate=True)
                raise CompetitionError(
                    "out_of_sync", f"expected seq {live.seq + 1}", expected=live.seq + 1
                )
            t = self._tournaments.get(t.id, t)  # it may have closed while we waited
            self._check_playable(t)
            now = self.now()
            if live.status == TIMED_OUT or (now >= live.entry.deadline and live.status == PLAYING):
                raise CompetitionError("closed", "the game's deadline has passed")
            if live.status != PLAYING:
                raise CompetitionError("illegal_action", f"the game is over ({live.status})")
            try:
                new_state, events = live.state.apply(action)
            except ActionError as exc:
                raise CompetitionError("illegal_action", exc.message, reason=exc.reason) from None
            at_ms = max(live.last_at_ms, timing.ms_between(live.entry.started_at, now))
            status = _TEXT_OF[new_state.status]
            time_ms = at_ms if status != PLAYING else 0
            summary = summary_of(new_state, status, time_ms, seq)
            try:
                await self.store.append(t.id, live.entry.id, seq, at_ms, canonical, summary)
            except TournamentClosed:
                await self._refresh()  # closed by another process: learn it now
                raise CompetitionError("closed", f"tournament {t.id} is closed") from None
            except Exception:  # stored or not is unknown: rebuild from the log when next asked
                self._forget(live)
                raise
            live.state, live.status, live.time_ms, live.last_at_ms = (
                new_state,
                status,
                time_ms,
                at_ms,
            )
            live.actions.append(canonical)
        self.on_standings_changed(t.id)
        return self._snapshot(t, live, events, now=now)

    async def hint(self, player: PlayerInfo, tournament_id: int) -> tuple[Any, bool]:
        """(suggested action or None, no_moves) for games whose options allow hints."""
        t = await self.find(tournament_id)
        if not t.options.get("hints"):
            raise CompetitionError("forbidden", f"tournament {t.id} gives no hints")
        live = await self._live(t.id, player.id)
        action = live.state.hint()  # type: ignore[attr-defined]
        return (None if action is None else action_data(action)), (action is None)

    def _check_playable(self, t: TournamentInfo) -> None:
        if t.status == "closed" or t.id in self._closing:
            raise CompetitionError("closed", f"tournament {t.id} is closed")
        if t.status == "scheduled" and self.now() < t.starts_at:
            raise CompetitionError(
                "not_open", f"tournament {t.id} opens at {timing.iso(t.starts_at)}"
            )

    async def _seed(self, tournament_id: int) -> bytes:
        seed = self._seeds.get(tournament_id)
        if seed is None:
            seed = bytes.fromhex(await self.store.secret_seed(tournament_id))
            self._seeds[tournament_id] = seed
        return seed

    def _cached(self, tournament_id: int, player_id: int) -> LiveGame | None:
        entry_id = self._entry_ids.get((tournament_id, player_id))
        return None if entry_id is None else self._games.get(entry_id)

    async def _live(self, tournament_id: int, player_id: int) -> LiveGame:
        """The game in memory, rebuilt from the stored log if needed."""
        key = (tournament_id, player_id)
        live = self._cached(tournament_id, player_id)
        if live is not None:
            return live
        lock = self._load_locks.setdefault(key, asyncio.Lock())
        async with lock:
            live = self._cached(tournament_id, player_id)
            if live is not None:
                return live
            entry = await self.store.entry(tournament_id, player_id)
            if entry is None:
                raise CompetitionError("not_found", "no entry: join the tournament first")
            live = await self._rebuild(entry)
            self._games[entry.id] = live
            self._entry_ids[key] = entry.id
            return live

    async def _rebuild(self, entry: EntryInfo) -> LiveGame:
        t = await self.find(entry.tournament_id)
        rules = RULES[t.game]
        logged = await self.store.actions(entry.id)
        state = rules.replay(
            await self._seed(t.id),
            rules.parse_options(t.options),
            [a.action for a in logged],
            player_id=entry.player_id,
            deal_attempt=t.deal_attempt,
        )
        status = entry.status if entry.status == TIMED_OUT else state.status.value
        last_at = logged[-1].at_ms if logged else 0
        time_ms = entry.time_ms if status == TIMED_OUT else (last_at if status != PLAYING else 0)
        actions = [canonical_json(a.action) for a in logged]
        return LiveGame(entry, rules, state, actions, last_at, status, time_ms)

    def _snapshot(
        self,
        t: TournamentInfo,
        live: LiveGame,
        events: list[dict[str, Any]],
        duplicate: bool = False,
        now: datetime | None = None,
    ) -> Snapshot:
        e = live.entry
        if live.status == PLAYING:
            now = now or self.now()
            if now >= e.deadline:
                time_ms = timing.ms_between(e.started_at, e.deadline)
                status = TIMED_OUT
            else:
                time_ms, status = timing.ms_between(e.started_at, now), live.status
        else:
            time_ms, status = live.time_ms, live.status
        return Snapshot(
            tournament_id=t.id,
            game=t.game,
            seq=live.seq,
            status=status,
            started_iso=live.started_iso,
            deadline_iso=live.deadline_iso,
            time_ms=time_ms,
            progress=live.state.progress_view(),
            view=live.state.view(),
            events=events,
            duplicate=duplicate,
        )

    # -- standings and records ------------------------------------------
    async def standings(self, tournament_id: int) -> tuple[list[Standing], bool]:
        """Current standings (running games ranked on their time so far) and finality."""
        t = await self.find(tournament_id)
        now = self.now()
        results = []
        for e in await self.store.entries(t.id):
            time_ms = e.time_ms
            if e.status == PLAYING:
                time_ms = timing.ms_between(e.started_at, min(now, e.deadline))
            results.append(Result(e.player_name, e.status, e.progress, e.resets, time_ms, e.score))
        return standings(results), t.status == "closed"

    async def record(self, tournament_id: int, player_name: str) -> dict[str, Any]:
        t = await self.find(tournament_id)
        seed = await self._revealed(t)
        player = await self.store.player_by_name(player_name)
        entry = None if player is None else await self.store.entry(t.id, player.id)
        if entry is None:
            raise CompetitionError(
                "not_found", f"{player_name!r} has no entry in tournament {t.id}"
            )
        return await self._record(t, seed, entry)

    async def bundle(self, tournament_id: int) -> dict[str, Any]:
        t = await self.find(tournament_id)
        seed = await self._revealed(t)
        records = [await self._record(t, seed, e) for e in await self.store.entries(t.id)]
        rows, _ = await self.standings(t.id)
        return bundle_of(self._record_tournament(t, seed), records, [r.as_dict() for r in rows])

    async def _revealed(self, t: TournamentInfo) -> str:
        if t.status != "closed":
            raise CompetitionError("not_revealed", f"tournament {t.id} is not closed yet")
        return await self.store.secret_seed(t.id)

    def _record_tournament(self, t: TournamentInfo, seed: str) -> dict[str, Any]:
        return {
            "id": t.id,
            "name": t.name,
            "game": t.game,
            "options": t.options,
            "commitment": t.commitment,
            "seed": seed,
            "starts_at": timing.iso(t.starts_at),
            "ends_at": timing.iso(t.ends_at),
            "time_limit_s": t.time_limit_s,
            "deal_attempt": t.deal_attempt,
            "solution": t.solution,
            "closed_at": timing.iso(t.closed_at) if t.closed_at else None,
        }

    async def _record(self, t: TournamentInfo, seed: str, e: EntryInfo) -> dict[str, Any]:
        actions = [
            {"seq": a.seq, "at_ms": a.at_ms, "action": a.action}
            for a in await self.store.actions(e.id)
        ]
        result = result_of(e.status, e.progress, e.resets, e.time_ms, e.score)
        return record_of(
            self._record_tournament(t, seed),
            {"id": e.player_id, "name": e.player_name},
            timing.iso(e.started_at),
            actions,
            result,
        )


def default_demo_spec(now: datetime) -> TournamentSpec:
    """The demo Gaps tournament an empty database gets: open for 24 hours."""
    return TournamentSpec(
        name="Demo Gaps",
        game="gaps",
        options={"redeals": 2},
        starts_at=now,
        ends_at=now + timedelta(hours=24),
        time_limit_s=1800,
    )
