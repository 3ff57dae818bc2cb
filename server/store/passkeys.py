"""Passkeys in the database (v1.4, PROTOCOL.md "Accounts", WebAuthn): players' user
handles, their credentials, and the challenges issued. Plain async functions over a
`Store`; every decision two nodes could race for (a challenge used, a sign count
grown) is one conditional update."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import delete, select, update
from sqlalchemy.exc import IntegrityError

from server.domain.model import PlayerInfo
from server.store.models import Passkey, PasskeyChallenge, PasskeyUser, Player
from server.store.repository import Store

KEPT = timedelta(hours=1)  # challenges older than this are deleted when others are made


@dataclass(frozen=True, slots=True)
class PasskeyInfo:
    id: int
    player_id: int
    credential_id: str  # base64url
    public_key: bytes  # COSE
    sign_count: int
    label: str | None
    created_at: datetime
    last_used_at: datetime | None


def _info(row: Passkey) -> PasskeyInfo:
    return PasskeyInfo(
        row.id,
        row.player_id,
        row.credential_id,
        row.public_key,
        row.sign_count,
        row.label,
        row.created_at,
        row.last_used_at,
    )


async def handle_of(store: Store, player_id: int, make: str) -> str:
    """The player's user handle (base64url), `make` stored as it when it has none."""
    async with store._session() as s:
        found = await s.get(PasskeyUser, player_id)
        if found is not None:
            return found.handle
        s.add(PasskeyUser(player_id=player_id, handle=make))
        try:
            await s.commit()
        except IntegrityError:  # made meanwhile (another node): that one
            await s.rollback()
            again = await s.get(PasskeyUser, player_id)
            assert again is not None
            return again.handle
        return make


async def handle(store: Store, player_id: int) -> str | None:
    """The player's user handle, if they have one."""
    async with store._session() as s:
        found = await s.get(PasskeyUser, player_id)
        return None if found is None else found.handle


async def issue(
    store: Store, challenge_hash: str, purpose: str, player_id: int | None, now: datetime
) -> None:
    """Keep a challenge issued (its hash), for `purpose` (and, to register, the player)."""
    async with store._session() as s:
        await s.execute(delete(PasskeyChallenge).where(PasskeyChallenge.created_at < now - KEPT))
        s.add(
            PasskeyChallenge(
                challenge_hash=challenge_hash,
                purpose=purpose,
                player_id=player_id,
                created_at=now,
                used=False,
            )
        )
        await s.commit()


async def use(
    store: Store,
    challenge_hash: str,
    purpose: str,
    player_id: int | None,
    since: datetime,
) -> bool:
    """Use up the challenge: True when it was issued for `purpose` (to `player_id`),
    after `since` and not used before; whatever the answer, it is used now."""
    async with store._session() as s:
        result = await s.execute(
            update(PasskeyChallenge)
            .where(PasskeyChallenge.challenge_hash == challenge_hash, ~PasskeyChallenge.used)
            .values(used=True)
            .returning(
                PasskeyChallenge.purpose, PasskeyChallenge.player_id, PasskeyChallenge.created_at
            )
        )
        row = result.first()
        await s.commit()
    if row is None:
        return False
    return row[0] == purpose and row[1] == player_id and row[2] > since


async def held(store: Store, credential_id: str) -> bool:
    """Whether a passkey (removed or not) holds this credential id."""
    async with store._session() as s:
        found = await s.scalar(select(Passkey.id).where(Passkey.credential_id == credential_id))
        return found is not None


async def add(
    store: Store,
    player_id: int,
    credential_id: str,
    public_key: bytes,
    sign_count: int,
    label: str | None,
    now: datetime,
) -> PasskeyInfo | None:
    """A new passkey of the player; None when the credential id is held already."""
    async with store._session() as s:
        row = Passkey(
            player_id=player_id,
            credential_id=credential_id,
            public_key=public_key,
            sign_count=sign_count,
            label=label,
            created_at=now,
        )
        s.add(row)
        try:
            await s.commit()
        except IntegrityError:
            return None
        return _info(row)


async def in_force(store: Store, player_id: int) -> list[PasskeyInfo]:
    """The player's passkeys not removed, oldest first."""
    async with store._session() as s:
        rows = await s.scalars(
            select(Passkey)
            .where(Passkey.player_id == player_id, Passkey.removed_at.is_(None))
            .order_by(Passkey.id)
        )
        return [_info(r) for r in rows]


async def by_credential(store: Store, credential_id: str) -> tuple[PasskeyInfo, PlayerInfo] | None:
    """The passkey (not removed) holding this credential id, and its player."""
    async with store._session() as s:
        row = (
            await s.execute(
                select(Passkey, Player)
                .join(Player, Player.id == Passkey.player_id)
                .where(Passkey.credential_id == credential_id, Passkey.removed_at.is_(None))
            )
        ).first()
        if row is None:
            return None
        p = row[1]
        return _info(row[0]), PlayerInfo(p.id, p.name, p.admin, p.bot)


async def in_force_by_id(store: Store, passkey_id: int) -> bool:
    """Whether the passkey is not removed."""
    async with store._session() as s:
        found = await s.scalar(
            select(Passkey.id).where(Passkey.id == passkey_id, Passkey.removed_at.is_(None))
        )
        return found is not None


async def used(store: Store, passkey_id: int, old: int, new: int, now: datetime) -> bool:
    """A sign-in with the passkey: its sign count from `old` to `new` (a conditional
    update: a count that did not grow since, here or on another node, is refused)."""
    async with store._session() as s:
        query = update(Passkey).where(
            Passkey.id == passkey_id, Passkey.removed_at.is_(None), Passkey.sign_count == old
        )
        if new or old:
            query = query.where(Passkey.sign_count < new)
        done = await s.execute(query.values(sign_count=new, last_used_at=now))
        await s.commit()
        return bool(done.rowcount)  # type: ignore[attr-defined]


async def remove(store: Store, player_id: int, passkey_id: int | None, now: datetime) -> list[int]:
    """Remove the player's passkey `passkey_id` (None: all of them); the ids removed."""
    async with store._session() as s:
        query = update(Passkey).where(Passkey.player_id == player_id, Passkey.removed_at.is_(None))
        if passkey_id is not None:
            query = query.where(Passkey.id == passkey_id)
        result = await s.execute(query.values(removed_at=now).returning(Passkey.id))
        removed = sorted(result.scalars().all())
        await s.commit()
        return removed
