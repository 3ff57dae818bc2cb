"""What a team battle's tables read beyond its entries (v1.4, PROTOCOL.md "Team battles"):
its named clubs' names."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import select

from server.store.models import Club
from server.store.repository import Store


async def club_names(store: Store, ids: Sequence[int]) -> dict[int, str]:
    """Club id -> name of these clubs (a club keeps its id and name for good)."""
    if not ids:
        return {}
    async with store._session() as s:
        rows = await s.execute(select(Club.id, Club.name).where(Club.id.in_(list(ids))))
        return {club_id: name for club_id, name in rows.all()}
