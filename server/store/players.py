"""The store's calls on players: registration (by group commit), finding a player by
token hash or name, the admin role."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Protocol

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from server.domain.accounts import DeviceInfo, DeviceKind
from server.domain.model import NameTaken, PlayerInfo
from server.domain.names import name_key
from server.store.models import Player, utc_naive
from server.store.writer import Conflict, Writer


class _Sessions(Protocol):
    writer: Writer

    def _session(self) -> AsyncSession: ...


class PlayerCalls:
    """A mixin of `Store` (repository.py): its writer and sessions."""

    async def create_player(
        self: _Sessions, name: str, token_hash: str, now: datetime, label: str | None = None
    ) -> PlayerInfo:
        """A new player, as `create_account` makes it."""
        return (await PlayerCalls.create_account(self, name, token_hash, now, label))[0]

    async def create_account(
        self: _Sessions, name: str, token_hash: str, now: datetime, label: str | None = None
    ) -> tuple[PlayerInfo, DeviceInfo]:
        """A new (non-admin) player and its first device (v1.4: the token's, labelled
        `label`), committed by group commit; NameTaken when the name is taken
        case-insensitively (or, however unlikely, the token's hash is), NameErased when
        it was a deleted account's (the writer's check, in the insert's transaction)."""
        try:
            key = name_key(name)
            made = await self.writer.new_player(name, key, token_hash, now, label)
        except Conflict:
            raise NameTaken(name) from None
        at = utc_naive(now).replace(tzinfo=UTC)  # (as the device's row reads back)
        device = DeviceInfo(made.device_id, made.player_id, DeviceKind.TOKEN, label, at, at)
        return PlayerInfo(made.player_id, name, False), device

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
