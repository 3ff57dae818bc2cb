"""Deleted accounts in the database (v1.4, PROTOCOL.md "Accounts"): the name goes (the
pseudonym takes its place, the old key is kept so it is never registered again), the
admin role ends, and every tournament closed before gains an erasure amendment. Plain
async functions over a `Store`."""

from __future__ import annotations

from datetime import datetime
from typing import NamedTuple

from sqlalchemy import delete, select, update
from sqlalchemy.exc import IntegrityError

from server.domain.names import name_key
from server.store import clubs, pg_coordination
from server.store.models import Device, Entry, ErasedName, Erasure, Player, TournamentRow
from server.store.repository import Store


class Erased(NamedTuple):
    """What a deletion touched: tournaments not closed with an entry of the player (its
    tables read again), and closed ones (their bundles gain an erasure)."""

    open_ids: list[int]
    closed_ids: list[int]


async def name_erased(store: Store, name: str) -> bool:
    """Whether `name` (as names compare) was a deleted account's (one Core read: a new
    player's name is checked by the writer, in its insert's transaction)."""
    async with store.engine.connect() as c:
        found = await c.scalar(
            select(ErasedName.player_id).where(ErasedName.name_key == name_key(name))
        )
        return found is not None


async def withdraw(store: Store, player_id: int) -> None:
    """A registration that lost the race with the deletion of its name's account: the new
    player and its first device go (nothing else holds them yet: its token was not given)."""
    async with store._session() as s:
        await s.execute(delete(Device).where(Device.player_id == player_id))
        await s.execute(delete(Player).where(Player.id == player_id))
        await s.commit()


async def erase(store: Store, player_id: int, pseudonym: str, now: datetime) -> Erased | None:
    """Rename the player to `pseudonym`, keep the old name's key, end the admin role, add
    the erasures; every node is told to read the touched tournaments again. None, and
    nothing changed, when the account is already deleted (a second deletion at once, from
    another connection or node: the unique `erased_names.player_id` decides)."""
    async with store._session() as s:
        player = await s.get(Player, player_id)
        if player is None:
            return None
        done = await s.scalar(select(ErasedName.player_id).where(ErasedName.player_id == player_id))
        if done is not None:
            return None
        s.add(ErasedName(name_key=player.name_key, player_id=player_id, at=now))
        try:
            await s.flush()
        except IntegrityError:
            await s.rollback()
            return None
        await s.execute(
            update(Player)
            .where(Player.id == player_id)
            .values(name=pseudonym, name_key=name_key(pseudonym), admin=False)
        )
        rows = await s.execute(
            select(Entry.tournament_id, TournamentRow.status)
            .join(TournamentRow, TournamentRow.id == Entry.tournament_id)
            .where(Entry.player_id == player_id)
            .order_by(Entry.tournament_id)
        )
        erased = Erased([], [])
        for tid, status in rows.all():
            (erased.closed_ids if status == "closed" else erased.open_ids).append(tid)
        for tid in erased.closed_ids:
            s.add(Erasure(tournament_id=tid, player_id=player_id, at=now))
        await clubs.remove_player(s, player_id)  # v1.4: out of its clubs, owned ones pass on
        lines = [pg_coordination.renamed_line(t) for t in erased.open_ids + erased.closed_ids]
        await store._notify(s, lines)
        await s.commit()
        return erased


async def of_tournament(store: Store, tournament_id: int) -> list[tuple[int, datetime]]:
    """The tournament's erasures: (player id, at), in order of `at`."""
    async with store._session() as s:
        rows = await s.execute(
            select(Erasure.player_id, Erasure.at)
            .where(Erasure.tournament_id == tournament_id)
            .order_by(Erasure.at, Erasure.player_id)
        )
        return [(r[0], r[1]) for r in rows.all()]
