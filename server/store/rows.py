"""Rows to domain records and back: what the store's reads return (never an ORM row),
and the one layout of an entry's figures as columns (what the writers' SQL takes)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Row

from server.domain.model import (
    EntryInfo,
    Figures,
    Status,
    Summary,
    TournamentInfo,
    TournamentStatus,
)
from server.store.models import Entry, TournamentRow


def tournament_of(row: TournamentRow, entrants: int = 0) -> TournamentInfo:
    return TournamentInfo(
        id=row.id,
        name=row.name,
        game=row.game,
        options=dict(row.options),
        commitment=row.commitment,
        starts_at=row.starts_at,
        ends_at=row.ends_at,
        join_until=row.join_until,
        time_limit_s=row.time_limit_s,
        status=TournamentStatus(row.status),
        deal_attempt=row.deal_attempt,
        guaranteed=row.guaranteed,
        solution=row.solution,
        created_at=row.created_at,
        closed_at=row.closed_at,
        entrants=entrants,
        beacon=dict(row.beacon) if row.beacon else None,
        void=bool(row.void),
        schedule_id=row.schedule_id,
        occurrence=row.occurrence,
        conditions=row.conditions,
        rated=row.rated,
        club_id=row.club_id,  # club events (v1.4)
        visibility=row.visibility,
        entry_code=row.entry_code,
        created_by=row.created_by,
        battle=row.battle,
    )


SummaryColumns = tuple[str, int, int, int, int, int, str]
"""An entry's columns status, progress, resets, score, time_ms, seq, log_hash, in order."""


def summary_columns(s: Summary) -> SummaryColumns:
    """A summary as the entry's columns (SummaryColumns): the one order both writers'
    SQL takes them in (pg_writer.py, sqlite_process.py)."""
    f = s.figures
    return (f.status, f.progress, f.resets, f.score, f.time_ms, s.seq, s.log_hash)


EntryRow = Entry | Row[Any]
"""An entry's row: the ORM's, or a Core row of the entries table's columns."""


def figures_of(row: EntryRow) -> Figures:
    """An entry row's figures."""
    return Figures(
        status=Status(row.status),
        progress=row.progress,
        resets=row.resets,
        score=row.score,
        time_ms=row.time_ms,
    )


def entry_of(row: EntryRow, player_name: str, player_bot: bool = False) -> EntryInfo:
    return EntryInfo(
        id=row.id,
        tournament_id=row.tournament_id,
        player_id=row.player_id,
        player_name=player_name,
        started_at=row.started_at,
        deadline=row.deadline,
        figures=figures_of(row),
        seq=row.seq,
        log_hash=row.log_hash,
        log_seq=row.log_seq,
        player_bot=player_bot,
        club_id=row.club_id,  # a battle's (v1.4)
    )
