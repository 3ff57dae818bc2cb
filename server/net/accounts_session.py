"""The account messages of protocol v1.4 (PROTOCOL.md "Accounts"): devices, revoking one
or all others. Handlers take the connection's Session (its `competition`, `player` and
`device`), like schedule_session.py."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from server.competition.errors import CompetitionError
from server.competition.service import Competition
from server.domain import timing
from server.domain.accounts import DeviceInfo, RelyingParty
from server.domain.model import PlayerInfo
from server.net.accounts_protocol import (
    DeleteAccount,
    DevicesRequest,
    LinkApprove,
    LinkInfo,
    LinkPoll,
    LinkStart,
    PasskeyLogin,
    PasskeyOptions,
    PasskeyRegister,
    PasskeysRequest,
    RemovePasskey,
    RevokeDevice,
    RevokeOtherDevices,
    device_brief,
    device_item,
    passkey_item,
)

TEXTS = {
    "starts": "too many registrations and links from your address: try again later",
    "sign_ins": "too many passkey sign-ins from your address: try again in a minute",
    "authenticate": "authenticate first (auth or register)",
}


class _Session(Protocol):
    competition: Competition
    player: PlayerInfo | None
    device: DeviceInfo | None
    conn: Any
    may_register: Callable[[], bool] | None
    may_sign_in: Callable[[], bool] | None
    relying_party: Callable[[], RelyingParty | None]

    async def sign_in(self, player: PlayerInfo, device: DeviceInfo) -> None: ...


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


async def _link_start(session: _Session, m: LinkStart) -> dict[str, Any]:
    """Public; counted with registrations against the address's limit."""
    if session.may_register is not None and not session.may_register():
        raise CompetitionError("rate_limited", TEXTS["starts"], reason="too_many_links")
    link = await session.competition.links.start(m.label)
    return {
        "type": "link_code",
        "code": link.code,
        "poll": link.poll,
        "expires_at": timing.iso(link.expires_at),
        "interval_s": link.interval_s,
    }


async def _link_approve(session: _Session, m: LinkApprove) -> dict[str, Any]:
    assert session.player is not None
    address = str(getattr(session.conn, "ip", ""))
    device = await session.competition.links.approve(session.player, m.code, address)
    return {"type": "link_approved", "device": {"id": device.id, "label": device.label}}


async def _link_info(session: _Session, m: LinkInfo) -> dict[str, Any]:
    assert session.player is not None
    address = str(getattr(session.conn, "ip", ""))
    label, expires = await session.competition.links.describe(session.player, m.code, address)
    return {"type": "link_info", "label": label, "expires_at": timing.iso(expires)}


async def _link_poll(session: _Session, m: LinkPoll) -> dict[str, Any]:
    """Public; once approved, the new device's token, once: this connection is it."""
    player, device, token = await session.competition.links.poll(m.poll)
    await session.sign_in(player, device)
    return _registered(player, device, token)


async def _delete_account(session: _Session, m: DeleteAccount) -> dict[str, Any]:
    """Every device signed out (this connection too, after the reply)."""
    assert session.player is not None
    await session.competition.accounts.delete(session.player, m.confirm)
    return {"type": "account_deleted"}


async def _passkey_options(session: _Session, m: PasskeyOptions) -> dict[str, Any]:
    """`login` is public; `register` is a signed-in player's."""
    passkeys = session.competition.passkeys
    if m.purpose == "login":
        options = await passkeys.login_options(session.relying_party())
    else:
        if session.player is None:
            raise CompetitionError("unauthorized", TEXTS["authenticate"])
        options = await passkeys.register_options(session.player, session.relying_party())
    return {"type": "passkey_options", "options": options}


async def _passkey_register(session: _Session, m: PasskeyRegister) -> dict[str, Any]:
    assert session.player is not None
    rp = session.relying_party()
    added = await session.competition.passkeys.register(
        session.player, dict(m.credential), m.label, rp
    )
    return {
        "type": "passkey_added",
        "passkey": {
            "id": added.id,
            "label": added.label,
            "created_at": timing.iso(added.created_at),
        },
    }


async def _passkey_login(session: _Session, m: PasskeyLogin) -> dict[str, Any]:
    """Public; limited per address before anything else (its challenge then unused)."""
    if session.may_sign_in is not None and not session.may_sign_in():
        raise CompetitionError("rate_limited", TEXTS["sign_ins"])
    rp = session.relying_party()
    player, device, token = await session.competition.passkeys.login(dict(m.credential), rp)
    await session.sign_in(player, device)
    return _registered(player, device, token)


async def _passkeys(session: _Session, m: PasskeysRequest) -> dict[str, Any]:
    assert session.player is not None
    items = await session.competition.passkeys.listed(session.player)
    return {"type": "passkeys", "items": [passkey_item(p) for p in items]}


async def _remove_passkey(session: _Session, m: RemovePasskey) -> dict[str, Any]:
    assert session.player is not None
    await session.competition.passkeys.remove(session.player, m.passkey)
    return {"type": "passkey_removed", "passkey": m.passkey}


HANDLERS: dict[str, Callable[[Any, Any], Awaitable[dict[str, Any]]]] = {
    "devices": _devices,
    "revoke_device": _revoke_device,
    "revoke_other_devices": _revoke_other_devices,
    "link_start": _link_start,
    "link_approve": _link_approve,
    "link_poll": _link_poll,
    "link_info": _link_info,
    "delete_account": _delete_account,
    "passkey_options": _passkey_options,
    "passkey_register": _passkey_register,
    "passkey_login": _passkey_login,
    "passkeys": _passkeys,
    "remove_passkey": _remove_passkey,
}


def _registered(player: PlayerInfo, device: DeviceInfo, token: str) -> dict[str, Any]:
    """The reply that hands a new device its token (a link polled, a passkey sign-in)."""
    return {
        "type": "registered",
        "player": {"id": player.id, "name": player.name},
        "token": token,
        "device": device_brief(device),
    }
