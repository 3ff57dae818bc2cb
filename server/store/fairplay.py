"""Fair play in the database: disqualifications (one per entry) and what the organiser's
reports read (entries with their players' kind and creation time).

Plain async functions over a `Store` (server/competition/fairplay.py calls them)."""

from __future__ import annotations

from datetime import datetime
from typing import NamedTuple

from sqlalchemy import func, select, update
from sqlalchemy.exc import IntegrityError

from server.domain.model import TournamentStatus
from server.store import pg_coordination
from server.store.models import DisqualificationRow, Entry, Player, TournamentRow
from server.store.repository import Store


class DisqualifiedEntry(NamedTuple):
    """One disqualified entry of a tournament."""

    entry_id: int
    player_id: int
    player: str
    reason: str
    at: datetime
    after_close: bool  # an amendment of the closed tournament's bundle


class Entrant(NamedTuple):
    """An entry as the reports read it: its player's kind and account's age."""

    entry_id: int
    player_id: int
    player: str
    bot: bool
    created_at: datetime  # the account
    started_at: datetime  # the entry (the join)


async def disqualify(
    store: Store, entry_id: int, reason: str, at: datetime
) -> DisqualifiedEntry | None:
    """Disqualify the entry, in one transaction that reads its tournament's status under
    a lock (after the close it is an amendment); None if it was disqualified already.
    Other nodes hear of it as a change of the tournament (their standings reload)."""
    async with store._session() as s:
        row = (
            await s.execute(
                select(Entry.tournament_id, Entry.player_id, Player.name)
                .join(Player, Player.id == Entry.player_id)
                .where(Entry.id == entry_id)
            )
        ).first()
        if row is None:
            return None
        tournament_id, player_id, name = row
        # a no-op update takes the tournament's row lock (PostgreSQL), so a close commits
        # either before (this is an amendment) or after (it is not)
        await s.execute(
            update(TournamentRow)
            .where(TournamentRow.id == tournament_id)
            .values(id=TournamentRow.id)
        )
        status = await s.scalar(
            select(TournamentRow.status).where(TournamentRow.id == tournament_id)
        )
        after = status == TournamentStatus.CLOSED
        s.add(
            DisqualificationRow(
                entry_id=entry_id,
                tournament_id=tournament_id,
                reason=reason,
                at=at,
                after_close=after,
            )
        )
        try:
            await s.flush()
        except IntegrityError:
            await s.rollback()
            return None
        await store._notify(s, [pg_coordination.tournament_line(tournament_id)])
        await s.commit()
        return DisqualifiedEntry(entry_id, player_id, name, reason, at, after)


async def of_tournament(store: Store, tournament_id: int) -> list[DisqualifiedEntry]:
    """The tournament's disqualified entries in the order they were made (at, entry)."""
    async with store._session() as s:
        rows = await s.execute(
            select(
                DisqualificationRow.entry_id,
                Entry.player_id,
                Player.name,
                DisqualificationRow.reason,
                DisqualificationRow.at,
                DisqualificationRow.after_close,
            )
            .join(Entry, Entry.id == DisqualificationRow.entry_id)
            .join(Player, Player.id == Entry.player_id)
            .where(DisqualificationRow.tournament_id == tournament_id)
            .order_by(DisqualificationRow.at, DisqualificationRow.entry_id)
        )
        return [DisqualifiedEntry(*r) for r in rows.all()]


async def counts(store: Store) -> dict[int, int]:
    """Tournament id -> how many of its entries are disqualified (never fewer later: a
    disqualification is never removed). SQLite's single server polls it on its clock to
    hear of those the operator's command line made (competition/lifecycle.py)."""
    query = select(DisqualificationRow.tournament_id, func.count()).group_by(
        DisqualificationRow.tournament_id
    )
    async with store._session() as s:
        return {tid: n for tid, n in (await s.execute(query)).all()}


async def reasons(store: Store, tournament_id: int) -> dict[str, str]:
    """Player name -> reason of the tournament's disqualified entries (the standings)."""
    return {d.player: d.reason for d in await of_tournament(store, tournament_id)}


async def entrants(store: Store, tournament_id: int) -> list[Entrant]:
    """Every entry of the tournament with its player's kind and creation time."""
    async with store._session() as s:
        rows = await s.execute(
            select(
                Entry.id,
                Entry.player_id,
                Player.name,
                Player.bot,
                Player.created_at,
                Entry.started_at,
            )
            .join(Player, Player.id == Entry.player_id)
            .where(Entry.tournament_id == tournament_id)
            .order_by(Entry.id)
        )
        return [Entrant(*r) for r in rows.all()]
