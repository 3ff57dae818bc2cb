"""The store's calls on players: registration (by group commit), finding a player by
token hash or name, the admin role."""

from __future__ import annotations

from datetime import datetime
from typing import Protocol

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from server.domain.model import NameTaken, PlayerInfo
from server.domain.names import name_key
from server.store.models import Player
from server.store.writer import Conflict, Writer


class _Sessions(Protocol):
    writer: Writer

    def _session(self) -> AsyncSession: ...


class PlayerCalls:
    """A mixin of `Store` (repository.py): its writer and sessions."""

    async def create_player(
        self: _Sessions, name: str, token_hash: str, now: datetime, label: str | None = None
    ) -> PlayerInfo:
        """A new (non-admin) player with its first device (v1.4: the token's, labelled
        `label`), committed by group commit; NameTaken when the name is taken
        case-insensitively (or, however unlikely, the token's hash is)."""
        try:
            key = name_key(name)
            player_id = await self.writer.new_player(name, key, token_hash, now, label)
        except Conflict:
            raise NameTaken(name) from None
        return PlayerInfo(player_id, name, False)

    async def player_by_token_hash(self: _Sessions, token_hash: str) -> PlayerInfo | None:
        async with self._session() as s:
            row = await s.scalar(select(Player).where(Player.token_hash == token_hash))
            return None if row is None else PlayerInfo(row.id, row.name, row.admin, row.bot)

    async def player_by_name(self: _Sessions, name: str) -> PlayerInfo | None:
        async with self._session() as s:
            row = await s.scalar(select(Player).where(Player.name_key == name_key(name)))
            return None if row is None else PlayerInfo(row.id, row.name, row.admin, row.bot)

    async def set_admin(self: _Sessions, name: str, admin: bool = True) -> bool:
        """Grant (or revoke) the admin role; False when no such player."""
        async with self._session() as s:
            res = await s.execute(
                update(Player).where(Player.name_key == name_key(name)).values(admin=admin)
            )
            await s.commit()
            return bool(res.rowcount)  # type: ignore[attr-defined]
