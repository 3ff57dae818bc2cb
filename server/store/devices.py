"""Devices in the database (v1.4, PROTOCOL.md "Accounts"): found by a token's hash,
listed, made, revoked. Plain async functions over a `Store`, like store/schedules.py.

A revocation sends its notice (store/pg_coordination.py `d` lines) in its own transaction, so
every node signs the devices' connections out once it has committed.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from sqlalchemy import ColumnElement, and_, or_, select, update
from sqlalchemy.exc import IntegrityError

from server.domain.accounts import DeviceInfo, DeviceKind
from server.domain.model import PlayerInfo
from server.store import pg_coordination
from server.store.models import Device, Player
from server.store.repository import Store


class TokenTaken(Exception):
    """The token's hash is held already (a 256-bit coincidence: never in practice)."""


def _info(row: Device) -> DeviceInfo:
    return DeviceInfo(
        row.id, row.player_id, DeviceKind(row.kind), row.label, row.created_at, row.last_seen_at
    )


def _player(row: Player) -> PlayerInfo:
    return PlayerInfo(row.id, row.name, row.admin, row.bot)


async def signed_in(store: Store, token_hash: str) -> tuple[PlayerInfo, DeviceInfo] | None:
    """The player and device a token (by its hash) signs in, not revoked; else None."""
    async with store._session() as s:
        row = (
            await s.execute(
                select(Player, Device)
                .join(Device, Device.player_id == Player.id)
                .where(Device.token_hash == token_hash, Device.revoked_at.is_(None))
            )
        ).first()
        return None if row is None else (_player(row[0]), _info(row[1]))


async def seen(store: Store, device_id: int, now: datetime) -> bool:
    """A sign-in with the device: its `last_seen_at`; False when it is revoked."""
    async with store._session() as s:
        done = await s.execute(
            update(Device)
            .where(Device.id == device_id, Device.revoked_at.is_(None))
            .values(last_seen_at=now)
        )
        await s.commit()
        return bool(done.rowcount)  # type: ignore[attr-defined]


def _in_force(now: datetime) -> ColumnElement[bool]:
    """Not revoked, and not a linked device whose token can no longer be fetched."""
    return and_(
        Device.revoked_at.is_(None), or_(Device.expires_at.is_(None), Device.expires_at > now)
    )


async def in_force(store: Store, player_id: int, now: datetime) -> list[DeviceInfo]:
    """The player's devices in force, oldest first."""
    async with store._session() as s:
        rows = await s.scalars(
            select(Device).where(Device.player_id == player_id, _in_force(now)).order_by(Device.id)
        )
        return [_info(r) for r in rows]


async def add(
    store: Store,
    player_id: int,
    token_hash: str | None,
    kind: DeviceKind,
    label: str | None,
    now: datetime,
) -> DeviceInfo:
    """A new device of the player (token_hash None: its token not made yet); TokenTaken."""
    async with store._session() as s:
        row = Device(
            player_id=player_id,
            token_hash=token_hash,
            kind=kind.value,
            label=label,
            created_at=now,
            last_seen_at=now,
        )
        s.add(row)
        try:
            await s.commit()
        except IntegrityError:
            raise TokenTaken() from None
        return _info(row)


async def revoke(
    store: Store, player_id: int, device_ids: Iterable[int] | None, keep: int | None, now: datetime
) -> list[int]:
    """Revoke the player's devices in force among `device_ids` (None: all of them) but
    `keep`; the ids revoked, told to every node."""
    async with store._session() as s:
        query = update(Device).where(Device.player_id == player_id, _in_force(now))
        if device_ids is not None:
            query = query.where(Device.id.in_(list(device_ids)))
        if keep is not None:
            query = query.where(Device.id != keep)
        result = await s.execute(query.values(revoked_at=now).returning(Device.id))
        revoked = sorted(result.scalars().all())
        if revoked:
            await store._notify(s, pg_coordination.devices_lines(revoked))
        await s.commit()
        return revoked


async def revoked_among(store: Store, device_ids: Iterable[int]) -> set[int]:
    """Which of these devices are revoked (a resync after notices may have been lost)."""
    ids = list(device_ids)
    if not ids:
        return set()
    async with store._session() as s:
        rows = await s.scalars(
            select(Device.id).where(Device.id.in_(ids), Device.revoked_at.is_not(None))
        )
        return set(rows)
