"""The account messages of protocol v1.4 (PROTOCOL.md "Accounts"): devices, revoking one
or all others. Handlers take the connection's Session (its `competition`, `player` and
`device`), like schedule_session.py."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from server.competition.service import Competition
from server.domain.accounts import DeviceInfo
from server.domain.model import PlayerInfo
from server.net.accounts_protocol import (
    DevicesRequest,
    RevokeDevice,
    RevokeOtherDevices,
    device_item,
)


class _Session(Protocol):
    competition: Competition
    player: PlayerInfo | None
    device: DeviceInfo | None


def _current(session: _Session) -> int | None:
    return None if session.device is None else session.device.id


async def _devices(session: _Session, m: DevicesRequest) -> dict[str, Any]:
    assert session.player is not None
    items = await session.competition.devices.listed(session.player)
    current = _current(session)
    return {"type": "devices", "items": [device_item(d, current) for d in items]}


async def _revoke_device(session: _Session, m: RevokeDevice) -> dict[str, Any]:
    assert session.player is not None
    await session.competition.devices.revoke(session.player, m.device)
    return {"type": "device_revoked", "device": m.device}


async def _revoke_other_devices(session: _Session, m: RevokeOtherDevices) -> dict[str, Any]:
    assert session.player is not None
    count = await session.competition.devices.revoke_others(session.player, _current(session))
    return {"type": "devices_revoked", "count": count}


HANDLERS: dict[str, Callable[[Any, Any], Awaitable[dict[str, Any]]]] = {
    "devices": _devices,
    "revoke_device": _revoke_device,
    "revoke_other_devices": _revoke_other_devices,
}
