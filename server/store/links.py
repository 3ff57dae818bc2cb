"""Device links in the database (v1.4, PROTOCOL.md "Accounts", after RFC 8628): a link's
hashed codes, its approval (a device of the approving player, token not yet made), the
one poll that fetches its token, and the guesses counted against approvers. Plain async
functions over a `Store`; each decision is made in one transaction, by a conditional
update where two nodes could race."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum

from sqlalchemy import delete, func, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from server.domain.accounts import DeviceInfo, DeviceKind
from server.domain.model import PlayerInfo
from server.store.models import Device, LinkCode, LinkGuess, Player
from server.store.repository import Store

KEPT_EXPIRED = timedelta(hours=1)  # an expired code still answers `expired` this long


class LinkRefusal(StrEnum):
    """Why a link step gave no result (the protocol's error codes but one)."""

    NOT_FOUND = "not_found"
    EXPIRED = "expired"
    PENDING = "authorization_pending"
    TOO_SOON = "too_soon"  # a poll within its interval


@dataclass(frozen=True, slots=True)
class NewLink:
    code_hash: str
    poll_hash: str
    label: str | None
    created_at: datetime
    expires_at: datetime
    interval_s: int


async def start(store: Store, link: NewLink) -> bool:
    """Store a new link (links gone for good are deleted first); False when its user code
    is held by a link still kept (draw another)."""
    async with store._session() as s:
        await s.execute(
            delete(LinkCode).where(LinkCode.expires_at < link.created_at - KEPT_EXPIRED)
        )
        s.add(
            LinkCode(
                code_hash=link.code_hash,
                poll_hash=link.poll_hash,
                label=link.label,
                created_at=link.created_at,
                expires_at=link.expires_at,
                interval_s=link.interval_s,
                fetched=False,
            )
        )
        try:
            await s.commit()
        except IntegrityError:
            return False
        return True


async def guesses(store: Store, player_id: int, address: str, since: datetime) -> int:
    """Wrong codes given since `since` by the player or from the address (any node)."""
    async with store._session() as s:
        count = await s.scalar(
            select(func.count())
            .select_from(LinkGuess)
            .where(
                LinkGuess.at > since,
                or_(LinkGuess.player_id == player_id, LinkGuess.address == address),
            )
        )
        return int(count or 0)


async def count_guess(store: Store, player_id: int, address: str, now: datetime) -> None:
    """A wrong code given (older guesses, past any window, are deleted)."""
    async with store._session() as s:
        await s.execute(delete(LinkGuess).where(LinkGuess.at < now - timedelta(hours=1)))
        s.add(LinkGuess(player_id=player_id, address=address[:64], at=now))
        await s.commit()


async def waiting(store: Store, code_hash: str, now: datetime) -> LinkCode | LinkRefusal:
    """The link waiting for approval under this code, or why not (as `approve` says)."""
    async with store._session() as s:
        return await _awaiting_approval(s, code_hash, now)


async def approve(
    store: Store, code_hash: str, player_id: int, now: datetime
) -> DeviceInfo | LinkRefusal:
    """The approving player's new device (kind `link`, token not yet made), or why not:
    NOT_FOUND (unknown, approved or fetched already, gone), EXPIRED."""
    async with store._session() as s:
        link = await _awaiting_approval(s, code_hash, now)
        if isinstance(link, LinkRefusal):
            return link
        device = Device(
            player_id=player_id,
            token_hash=None,
            kind=DeviceKind.LINK.value,
            label=link.label,
            created_at=now,
            last_seen_at=now,
            expires_at=link.expires_at,
        )
        s.add(device)
        await s.flush()
        taken = await s.execute(
            update(LinkCode)
            .where(LinkCode.id == link.id, LinkCode.device_id.is_(None))
            .values(device_id=device.id)
        )
        if taken.rowcount != 1:  # type: ignore[attr-defined]
            await s.rollback()  # approved meanwhile on another node
            return LinkRefusal.NOT_FOUND
        await s.commit()
        return DeviceInfo(device.id, player_id, DeviceKind.LINK, device.label, now, now)


async def poll(
    store: Store, poll_hash: str, token_hash: str, now: datetime
) -> tuple[PlayerInfo, DeviceInfo] | LinkRefusal:
    """The link's player and device, its token (by `token_hash`) made now, or why not:
    NOT_FOUND (unknown, fetched already, its device revoked, gone), TOO_SOON (within the
    interval of the previous poll not itself too soon), EXPIRED, PENDING."""
    async with store._session() as s:
        link = await s.scalar(select(LinkCode).where(LinkCode.poll_hash == poll_hash))
        if link is None:
            return LinkRefusal.NOT_FOUND
        last = link.last_poll_at
        if last is not None and now < last + timedelta(seconds=link.interval_s):
            return LinkRefusal.TOO_SOON
        link.last_poll_at = now
        refusal = _poll_refusal(link, now)
        if refusal is not None:
            await s.commit()
            return refusal
        device = await s.get(Device, link.device_id)
        player = await s.get(Player, device.player_id) if device is not None else None
        if device is None or player is None or device.revoked_at is not None:
            await s.commit()
            return LinkRefusal.NOT_FOUND
        done = await s.execute(
            update(LinkCode)
            .where(LinkCode.id == link.id, LinkCode.fetched.is_(False))
            .values(fetched=True, last_poll_at=now)
        )
        if done.rowcount != 1:  # type: ignore[attr-defined]
            await s.rollback()
            return LinkRefusal.NOT_FOUND
        device.token_hash = token_hash
        device.expires_at = None
        device.last_seen_at = now
        await s.commit()
        info = DeviceInfo(
            device.id, player.id, DeviceKind.LINK, device.label, device.created_at, now
        )
        return PlayerInfo(player.id, player.name, player.admin, player.bot), info


async def _awaiting_approval(
    s: AsyncSession, code_hash: str, now: datetime
) -> LinkCode | LinkRefusal:
    """The link under this code still to approve, or NOT_FOUND (unknown, approved or
    fetched already, gone) or EXPIRED."""
    link = await s.scalar(select(LinkCode).where(LinkCode.code_hash == code_hash))
    if link is None or link.device_id is not None or link.fetched:
        return LinkRefusal.NOT_FOUND
    expired = _expired(link, now)
    return link if expired is None else expired


def _expired(link: LinkCode, now: datetime) -> LinkRefusal | None:
    """Past its time: EXPIRED while kept (KEPT_EXPIRED), NOT_FOUND after; else None."""
    if now <= link.expires_at:
        return None
    return LinkRefusal.EXPIRED if now <= link.expires_at + KEPT_EXPIRED else LinkRefusal.NOT_FOUND


def _poll_refusal(link: LinkCode, now: datetime) -> LinkRefusal | None:
    if link.fetched:
        return LinkRefusal.NOT_FOUND
    expired = _expired(link, now)
    if expired is not None:
        return expired
    if link.device_id is None:
        return LinkRefusal.PENDING
    return None
