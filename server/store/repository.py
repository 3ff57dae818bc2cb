"""The narrow async API the server uses. Returns plain frozen records, never ORM rows.

Hot-path writes (actions, new players, new entries) go through the engine's `Writer`
(group commit, writer.py), the same calls on both backends; reads and the rare writes
(tournaments, closes, timeouts, roles) through SQLAlchemy sessions. `Store` gathers its
calls by concept: players (players.py), several nodes (nodes.py), and here tournaments,
entries and actions."""

from __future__ import annotations

import asyncio
import collections
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime
from typing import Any

import orjson
from sqlalchemy import bindparam, case, event, func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from server.domain import timing
from server.domain.model import (
    EntryExists,
    EntryInfo,
    Figures,
    LoggedAction,
    NewTournament,
    PlayerInfo,
    Status,
    Summary,
    TournamentInfo,
    TournamentStatus,
)
from server.domain.schedule import OccurrenceExists
from server.store import club_events, db, pg_coordination
from server.store.coordination import Coordination
from server.store.models import Action, Entry, Player, TournamentRow, TournamentSecret
from server.store.players import PlayerCalls
from server.store.rows import entry_of, tournament_of
from server.store.writer import Conflict, Writer
from server.store.writer_factory import make_writer

_ENTRY_OF_PLAYER = (
    select(Entry.__table__, Player.name.label("player_name"), Player.bot.label("player_bot"))
    .join(Player, Player.id == Entry.player_id)
    .where(Entry.tournament_id == bindparam("t"), Entry.player_id == bindparam("p"))
)


class Store(Coordination, PlayerCalls):
    """All persistence behind narrow async calls. Hot-path writes (actions, players,
    entries) go through group commit (`self.writer`, picked once for the engine)."""

    def __init__(self, engine: AsyncEngine, on_batch: Callable[[int], None] | None = None) -> None:
        self.engine = engine
        self.url = engine.url.render_as_string(hide_password=False)
        self._sessions = async_sessionmaker(engine, expire_on_commit=False)
        self.writer: Writer = make_writer(engine, on_batch)
        # Several nodes may serve a PostgreSQL database (pg_coordination.py); SQLite has one.
        self.shared = engine.dialect.name == "postgresql"
        self.dsn = engine.url.set(drivername="postgresql").render_as_string(hide_password=False)
        self._local_locks: dict[int, asyncio.Lock] = {}
        self.locks = pg_coordination.AdvisoryLocks(self.dsn) if self.shared else None
        # Statements this process sent through the engine, by kind (read, write, notify):
        # what a node asks of the database (/metrics; docs/SCALING.md).
        self.statements: collections.Counter[str] = collections.Counter()
        event.listen(engine.sync_engine, "before_cursor_execute", self._count)

    def _count(self, _conn: object, _cursor: object, statement: str, *_rest: object) -> None:
        head = statement.lstrip()[:16].upper()
        kind = "notify" if "PG_NOTIFY" in statement[:40].upper() else "read"
        if not head.startswith(("SELECT", "WITH", "PRAGMA", "SHOW")):
            kind = "write" if not head.startswith(("BEGIN", "COMMIT", "ROLLBACK")) else "txn"
        self.statements[kind] += 1

    @classmethod
    async def open(cls, url: str, *, migrate: bool = True) -> Store:
        """Connect (and upgrade the schema to head unless migrate=False)."""
        engine = db.make_engine(url)
        if migrate and not await db.at_head(engine):  # at head: no alembic to import
            await asyncio.to_thread(db.migrate, url)
        return cls(engine)

    async def close(self) -> None:
        await self.writer.close()
        if self.locks is not None:
            await self.locks.close()
        await self.engine.dispose()

    def _session(self) -> AsyncSession:
        return self._sessions()

    # -- tournaments -----------------------------------------------------
    async def create_tournament(
        self, new: NewTournament, limits: tuple[int, ...] = ()
    ) -> TournamentInfo:
        """The tournament stored; with `limits`, ClubEventsFull (nothing stored) unless
        one more event of each of these clubs fits (a non-admin's club event, v1.4)."""
        async with self._session() as s:
            await club_events.within_limits(s, limits, new.created_at)
            row = TournamentRow(
                name=new.name,
                game=new.game,
                options=new.options,
                commitment=new.commitment,
                starts_at=new.starts_at,
                ends_at=new.ends_at,
                join_until=new.join_until,
                time_limit_s=new.time_limit_s,
                status=new.status,
                deal_attempt=new.deal_attempt,
                guaranteed=new.guaranteed,
                solution=new.solution,
                created_at=new.created_at,
                beacon=new.beacon,
                schedule_id=new.schedule_id,
                occurrence=new.occurrence,
                conditions=new.conditions,
                rated=new.rated,
                club_id=new.club_id,  # club events (v1.4)
                visibility=new.visibility,
                entry_code=new.entry_code,
                created_by=new.created_by,
                battle=new.battle,
            )
            s.add(row)
            try:
                await s.flush()
            except IntegrityError:  # a schedule's (schedule, occurrence) exists (another node)
                if new.schedule_id is None:
                    raise
                raise OccurrenceExists(new.schedule_id, new.occurrence) from None
            s.add(TournamentSecret(tournament_id=row.id, seed=new.seed_hex))
            await self._notify(s, [pg_coordination.tournament_line(row.id)])
            await s.commit()
            return tournament_of(row)

    async def tournaments(self) -> list[TournamentInfo]:
        async with self._session() as s:
            counts = (
                select(Entry.tournament_id, func.count().label("n"))
                .group_by(Entry.tournament_id)
                .subquery()
            )
            rows = await s.execute(
                select(TournamentRow, func.coalesce(counts.c.n, 0))
                .outerjoin(counts, counts.c.tournament_id == TournamentRow.id)
                .order_by(TournamentRow.id)
            )
            return [tournament_of(t, n) for t, n in rows.all()]

    async def tournament(self, tournament_id: int) -> TournamentInfo | None:
        async with self._session() as s:
            row = await s.get(TournamentRow, tournament_id)
            if row is None:
                return None
            n = await s.scalar(
                select(func.count()).select_from(Entry).where(Entry.tournament_id == row.id)
            )
            return tournament_of(row, n or 0)

    async def count_tournaments(self) -> int:
        async with self._session() as s:
            return await s.scalar(select(func.count()).select_from(TournamentRow)) or 0

    async def secret_seed(self, tournament_id: int) -> str:
        """The seed. Callers use it to deal, and publish it only after the close."""
        async with self._session() as s:
            row = await s.get(TournamentSecret, tournament_id)
            if row is None:
                raise LookupError(f"no seed for tournament {tournament_id}")
            return row.seed

    async def open_tournament(self, tournament_id: int) -> bool:
        """Scheduled -> open; False (nothing changed) when it was not scheduled (another
        node opened it first)."""
        return await self._while_scheduled(tournament_id, True, status=TournamentStatus.OPEN)

    async def open_with_beacon(
        self,
        tournament_id: int,
        beacon: dict[str, Any],
        deal_attempt: int,
        guaranteed: bool,
        solution: list[dict[str, Any]] | None,
    ) -> bool:
        """Scheduled -> open with its verified beacon round and the deal prepared on the deal
        seed, in one conditional update; False when it was not scheduled (another node
        opened it first, or it was voided)."""
        return await self._while_scheduled(
            tournament_id,
            True,
            status=TournamentStatus.OPEN,
            beacon=beacon,
            deal_attempt=deal_attempt,
            guaranteed=guaranteed,
            solution=solution,
        )

    async def mark_void(self, tournament_id: int) -> bool:
        """A scheduled tournament whose beacon round could not be had is void (then
        closed, which tells the other nodes); False when it was not scheduled any more."""
        return await self._while_scheduled(tournament_id, False, void=True)

    async def _while_scheduled(self, tournament_id: int, notify: bool, **values: Any) -> bool:
        """One conditional update of a scheduled tournament's row: whether it was (one
        caller wins, however many nodes try); `notify`: the other nodes hear of it."""
        async with self._session() as s:
            res = await s.execute(
                update(TournamentRow)
                .where(
                    TournamentRow.id == tournament_id,
                    TournamentRow.status == TournamentStatus.SCHEDULED,
                )
                .values(**values)
            )
            if not res.rowcount:  # type: ignore[attr-defined]
                await s.rollback()
                return False
            if notify:
                await self._notify(s, [pg_coordination.tournament_line(tournament_id)])
            await s.commit()
            return True

    async def close_tournament(
        self, tournament_id: int, closed_at: datetime
    ) -> list[tuple[int, int]] | None:
        """Mark it closed and every game still playing in it timed out at its deadline or
        the close, whichever came first, in one transaction; the games timed out as (entry
        id, time_ms). None (and nothing changed) when it was already closed.

        The tournament's row is updated first, so a group-commit batch (which share-locks
        its tournaments' rows and refuses closed ones) either commits before the close and
        its entries are seen here, or waits and is refused."""
        async with self._session() as s:
            res = await s.execute(
                update(TournamentRow)
                .where(
                    TournamentRow.id == tournament_id,
                    TournamentRow.status != TournamentStatus.CLOSED,
                )
                .values(status=TournamentStatus.CLOSED, closed_at=closed_at)
            )
            if not res.rowcount:  # type: ignore[attr-defined]
                await s.rollback()
                return None
            playing = await s.execute(
                select(Entry.id, Entry.started_at, Entry.deadline)
                .where(Entry.tournament_id == tournament_id, Entry.status == Status.PLAYING)
                .order_by(Entry.id)
                .with_for_update()
            )
            timed_out = [
                (entry_id, timing.ms_between(started, min(deadline, closed_at)))
                for entry_id, started, deadline in playing.all()
            ]
            if timed_out:
                await s.execute(
                    update(Entry),
                    [{"id": i, "status": Status.TIMED_OUT, "time_ms": t} for i, t in timed_out],
                )
            await self._notify(s, [pg_coordination.tournament_line(tournament_id)])
            await s.commit()
            return timed_out

    # -- entries and actions --------------------------------------------
    async def create_entry(
        self,
        tournament_id: int,
        player: PlayerInfo,
        started_at: datetime,
        deadline: datetime,
        summary: Summary,
        club_id: int | None = None,
    ) -> EntryInfo:
        """A new entry with its first summary (its log_hash, the chain's start at seq 0,
        cached with log_seq = its seq), committed by group commit; EntryExists when the
        player already has one in the tournament."""
        try:
            entry_id = await self.writer.new_entry(
                tournament_id, player.id, started_at, deadline, summary, club_id
            )
        except Conflict:
            raise EntryExists(f"player {player.id} in tournament {tournament_id}") from None
        return EntryInfo(
            id=entry_id,
            tournament_id=tournament_id,
            player_id=player.id,
            player_name=player.name,
            started_at=started_at,
            deadline=deadline,
            figures=summary.figures,
            seq=summary.seq,
            log_hash=summary.log_hash,
            log_seq=summary.seq,
            player_bot=player.bot,
            club_id=club_id,  # a battle's (v1.4)
        )

    async def entry(self, tournament_id: int, player_id: int) -> EntryInfo | None:
        """The player's entry in the tournament (one Core read: every first join asks)."""
        async with self.engine.connect() as c:
            rows = await c.execute(_ENTRY_OF_PLAYER, {"t": tournament_id, "p": player_id})
            found = rows.first()
        return None if found is None else entry_of(found, found.player_name, found.player_bot)

    async def entries(self, tournament_id: int) -> list[EntryInfo]:
        async with self._session() as s:
            rows = await s.execute(
                select(Entry, Player.name, Player.bot)
                .join(Player, Player.id == Entry.player_id)
                .where(Entry.tournament_id == tournament_id)
                .order_by(Entry.id)
            )
            return [entry_of(e, n, b) for e, n, b in rows.all()]

    async def actions(self, entry_id: int) -> list[LoggedAction]:
        """The entry's action log in seq order."""
        async with self._session() as s:
            rows = await s.execute(
                select(Action.seq, Action.at_ms, Action.action)
                .where(Action.entry_id == entry_id)
                .order_by(Action.seq)
            )
            return [LoggedAction(seq, at_ms, orjson.loads(a)) for seq, at_ms, a in rows.all()]

    async def actions_of_entries(self, entry_ids: Sequence[int]) -> dict[int, list[LoggedAction]]:
        """The action logs of several entries in one query, by entry id, each in seq
        order (an entry without actions is absent): for bundles, which read every log
        of a tournament a batch of entries at a time instead of one query per entry."""
        if not entry_ids:
            return {}
        async with self._session() as s:
            rows = await s.execute(
                select(Action.entry_id, Action.seq, Action.at_ms, Action.action)
                .where(Action.entry_id.in_(list(entry_ids)))
                .order_by(Action.entry_id, Action.seq)
            )
            logs: dict[int, list[LoggedAction]] = {}
            for entry_id, seq, at_ms, a in rows.all():
                logs.setdefault(entry_id, []).append(LoggedAction(seq, at_ms, orjson.loads(a)))
            return logs

    async def log_tails(self, tournament_id: int) -> dict[int, list[LoggedAction]]:
        """For every entry of the tournament, by entry id, the actions its row's cached
        head does not cover (seq > log_seq; the whole log of a row without a head), in
        seq order; an entry whose head is current has none. One query for them all."""
        after = case((Entry.log_hash == "", 0), else_=Entry.log_seq)
        async with self._session() as s:
            rows = await s.execute(
                select(Action.entry_id, Action.seq, Action.at_ms, Action.action)
                .join(Entry, Entry.id == Action.entry_id)
                .where(Entry.tournament_id == tournament_id, Action.seq > after)
                .order_by(Action.entry_id, Action.seq)
            )
            tails: dict[int, list[LoggedAction]] = {}
            for entry_id, seq, at_ms, a in rows.all():
                tails.setdefault(entry_id, []).append(LoggedAction(seq, at_ms, orjson.loads(a)))
            return tails

    def append(
        self,
        tournament_id: int,
        entry_id: int,
        seq: int,
        at_ms: int,
        action_json: str,
        summary: Summary,
    ) -> Awaitable[None]:
        """Store one accepted action (its `canonical_json`) and the entry's new summary
        durably, by group commit: the awaitable completes once both are committed, or
        fails with DuplicateAction on a taken seq or TournamentClosed when the tournament
        closed first (nothing stored then). A summary's log_hash, at a checkpoint, becomes
        the row's cached head with log_seq = its seq; "" keeps the row's cached head."""
        return self.writer.append(tournament_id, entry_id, seq, at_ms, action_json, summary)

    async def time_out_entry(self, entry_id: int, time_ms: int) -> Summary | None:
        """A game still playing becomes timed out after `time_ms`; its new summary (whose
        log_hash is "": a timeout caches no head, the row keeps its older one), or None
        (nothing changed) when it was not playing any more (ended, or timed out by
        another node)."""
        async with self._session() as s:
            row = (
                await s.execute(
                    update(Entry)
                    .where(Entry.id == entry_id, Entry.status == Status.PLAYING)
                    .values(status=Status.TIMED_OUT, time_ms=time_ms)
                    .returning(
                        Entry.tournament_id,
                        Entry.progress,
                        Entry.resets,
                        Entry.score,
                        Entry.seq,
                    )
                )
            ).first()
            if row is None:
                await s.rollback()
                return None
            tid, progress, resets, score, seq = row
            figures = Figures(
                status=Status.TIMED_OUT,
                progress=progress,
                resets=resets,
                score=score,
                time_ms=time_ms,
            )
            summary = Summary(figures, seq, "")
            await self._notify(s, [pg_coordination.entry_line(tid, entry_id, seq, figures)])
            await s.commit()
            return summary

    async def entry_by_id(self, entry_id: int) -> EntryInfo | None:
        async with self._session() as s:
            found = (
                await s.execute(
                    select(Entry, Player.name, Player.bot)
                    .join(Player, Player.id == Entry.player_id)
                    .where(Entry.id == entry_id)
                )
            ).first()
            return None if found is None else entry_of(*found)

    async def entry_seq(self, entry_id: int) -> int | None:
        """How many actions the entry's log holds (its row's seq)."""
        async with self._session() as s:
            seq: int | None = await s.scalar(select(Entry.seq).where(Entry.id == entry_id))
            return seq

    async def due_entries(self, now: datetime) -> list[EntryInfo]:
        """Games still playing whose deadline has passed, in tournaments not closed."""
        async with self._session() as s:
            rows = await s.execute(
                select(Entry, Player.name, Player.bot)
                .join(Player, Player.id == Entry.player_id)
                .join(TournamentRow, TournamentRow.id == Entry.tournament_id)
                .where(
                    Entry.status == Status.PLAYING,
                    Entry.deadline <= now,
                    TournamentRow.status != TournamentStatus.CLOSED,
                )
            )
            return [entry_of(e, n, b) for e, n, b in rows.all()]

    async def games_by_status(self) -> dict[str, int]:
        async with self._session() as s:
            rows = await s.execute(select(Entry.status, func.count()).group_by(Entry.status))
            return {status: n for status, n in rows.all()}
