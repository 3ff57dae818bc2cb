"""Par in the database (migration 0008): one `pars` row per entry whose par was computed,
and the tournament's `par_at` mark once every entry had its par.

Plain async functions over a `Store` (server/competition/par.py computes; exports,
standings and player pages read). A par row is written at most once per entry (a second
writer's row is ignored), so a step redone after a crash, or by a second node, changes
nothing already stored."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any, NamedTuple

from sqlalchemy import select, update
from sqlalchemy.dialects import postgresql, sqlite

from server.domain.model import TournamentStatus
from server.store import pg_coordination
from server.store.models import EntryPar, TournamentRow
from server.store.repository import Store


class ParFigures(NamedTuple):
    """A par's result without its line: what standings rows carry."""

    progress: int
    resets: int


class StoredPar(NamedTuple):
    """One entry's stored par; `line` None: the tournament's solution (Klondike)."""

    entry_id: int
    progress: int
    resets: int
    line: list[dict[str, Any]] | None


async def pending(store: Store) -> list[int]:
    """Closed tournaments whose par step is not done, in close order then id."""
    async with store._session() as s:
        rows = await s.execute(
            select(TournamentRow.id)
            .where(TournamentRow.status == TournamentStatus.CLOSED, TournamentRow.par_at.is_(None))
            .order_by(TournamentRow.closed_at, TournamentRow.id)
        )
        return [r[0] for r in rows.all()]


async def done_entries(store: Store, tournament_id: int) -> set[int]:
    """The entries of the tournament that have their par already."""
    async with store._session() as s:
        rows = await s.execute(
            select(EntryPar.entry_id).where(EntryPar.tournament_id == tournament_id)
        )
        return {r[0] for r in rows.all()}


async def save(
    store: Store, tournament_id: int, pars: Sequence[StoredPar], at: datetime, notify: bool
) -> None:
    """Store these pars (an entry that has one already keeps it), in one transaction;
    with `notify`, other nodes hear of it (as `announce` says)."""
    if not pars:
        return
    rows = [
        {
            "entry_id": p.entry_id,
            "tournament_id": tournament_id,
            "progress": p.progress,
            "resets": p.resets,
            "line": p.line,
            "at": at,
        }
        for p in pars
    ]
    dialect = postgresql if store.shared else sqlite
    async with store._session() as s:
        await s.execute(dialect.insert(EntryPar).values(rows).on_conflict_do_nothing())
        if notify:
            await store._notify(s, [pg_coordination.tournament_line(tournament_id)])
        await s.commit()


async def announce(store: Store, tournament_id: int) -> None:
    """Tell other nodes the tournament's pars changed: they hear of it as a change of the
    tournament with no news of its facts (their standings and bundles are read again)."""
    if not store.shared:
        return
    async with store._session() as s:
        await store._notify(s, [pg_coordination.tournament_line(tournament_id)])
        await s.commit()


async def finish(store: Store, tournament_id: int, at: datetime) -> bool:
    """Mark the tournament's par step done; False when it was marked already (another
    node, or an earlier run): the conditional update exactly one caller wins."""
    async with store._session() as s:
        res = await s.execute(
            update(TournamentRow)
            .where(TournamentRow.id == tournament_id, TournamentRow.par_at.is_(None))
            .values(par_at=at)
        )
        await s.commit()
        return bool(res.rowcount)  # type: ignore[attr-defined]


async def figures(store: Store, tournament_id: int) -> dict[int, ParFigures]:
    """Every stored par of the tournament without its line, by entry id."""
    async with store._session() as s:
        rows = await s.execute(
            select(EntryPar.entry_id, EntryPar.progress, EntryPar.resets).where(
                EntryPar.tournament_id == tournament_id
            )
        )
        return {e: ParFigures(p, r) for e, p, r in rows.all()}


async def of_entries(store: Store, entry_ids: Iterable[int]) -> dict[int, StoredPar]:
    """The stored pars of these entries, with their lines, by entry id."""
    ids = list(entry_ids)
    out: dict[int, StoredPar] = {}
    async with store._session() as s:
        for start in range(0, len(ids), 500):
            rows = await s.execute(
                select(EntryPar.entry_id, EntryPar.progress, EntryPar.resets, EntryPar.line).where(
                    EntryPar.entry_id.in_(ids[start : start + 500])
                )
            )
            for e, p, r, line in rows.all():
                out[e] = StoredPar(e, p, r, line)
    return out
