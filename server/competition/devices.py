"""Devices (v1.4, PROTOCOL.md "Accounts"): every token is one device of its player;
signing in with one, listing them, revoking one or all others, and signing out the
connections of revoked devices on every node.

The transport tells this part which device each of its connections is signed in with
(`attach`, `forget`); a revocation made here, or learned from another node's notice
(`peers.py`), calls each such connection's sign-out at once.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Hashable, Iterable
from datetime import datetime

from server.competition.errors import CompetitionError
from server.competition.players import Players, token_hash
from server.domain.accounts import BadLabel, DeviceInfo, checked_label, is_reserved
from server.domain.model import PlayerInfo
from server.store import accounts as stored_accounts
from server.store import devices as stored
from server.store.repository import Store

log = logging.getLogger("samedeal.devices")
SignOut = Callable[[], None]
TEXTS = {
    "unknown_token": "unknown token",
    "no_device": "no device {id} of yours is in force",
    "taken": "the name {name!r} is taken",
}


def _taken(name: str) -> CompetitionError:
    return CompetitionError("name_taken", TEXTS["taken"].format(name=name), params={"name": name})


def label_of(label: str | None) -> str | None:
    """A device label as stored; `bad_request` saying why not."""
    try:
        return checked_label(label)
    except BadLabel as e:
        raise CompetitionError("bad_request", str(e), reason="bad_label") from None


class Devices:
    """Devices of players, and the connections signed in with each on this node."""

    def __init__(self, store: Store, players: Players, now: Callable[[], datetime]) -> None:
        self.store = store
        self.players = players
        self.now = now
        self._signed_in: dict[int, dict[Hashable, SignOut]] = {}  # device id -> conn -> out
        self._device_of: dict[Hashable, int] = {}

    # -- signing in ------------------------------------------------------------------
    async def register(
        self, name: str, label: str | None, bot: bool = False
    ) -> tuple[PlayerInfo, DeviceInfo, str]:
        """A new player (or bot), its first device (kind `token`) and token; `name_taken`
        when the name is reserved, taken, or was a deleted account's. A player's erased
        name is refused by the writer, in the insert's transaction (store/writer.py); a
        bot's is read before and after its insert."""
        label = label_of(label)
        if is_reserved(name):
            raise _taken(name)
        if bot:
            return await self._register_bot(name)
        try:
            return await self.players.register_device(name, label)
        except CompetitionError as e:  # a bad name that was erased is taken, as ever
            if e.reason == "bad_name" and await stored_accounts.name_erased(self.store, name):
                raise _taken(name) from None
            raise

    async def _register_bot(self, name: str) -> tuple[PlayerInfo, DeviceInfo, str]:
        if await stored_accounts.name_erased(self.store, name):
            raise _taken(name)
        player, token = await self.players.register_bot(name)
        if await stored_accounts.name_erased(self.store, player.name):
            # The name's account was deleted between the check above and the insert (the
            # insert waits for a deletion in flight, so this check, made after it, sees
            # it): the registration is withdrawn, nothing else holds the new player yet.
            await stored_accounts.withdraw(self.store, player.id)
            raise _taken(name)
        return player, await self._device_of_token(token), token

    async def authenticate(self, token: str) -> tuple[PlayerInfo, DeviceInfo]:
        """The token's player and device; `unauthorized` when no device in force has it.
        The connection is signed in with it by `hold` (which also makes `last_seen_at`)."""
        found = await stored.signed_in(self.store, token_hash(token))
        if found is None:
            raise CompetitionError("unauthorized", TEXTS["unknown_token"], reason="unknown_token")
        return found

    async def hold(
        self, device: DeviceInfo, conn: Hashable, sign_out: SignOut, fresh: bool = False
    ) -> bool:
        """Sign `conn` in with `device` unless it was revoked meanwhile (False).

        The connection is attached first, then the device is marked seen by an update
        conditional on its being in force: a revocation committed before that update
        fails it, one committed after it reaches the attached connection (here at once,
        on another node by its notice), so a revoked device never stays signed in.
        `fresh`: the device was just made by `register`, seen at its creation; its token
        is not given out yet and its player has no other device, so nothing can have
        revoked it: no update (a write and its fsync less per registration)."""
        self.attach(device.id, conn, sign_out)
        if fresh:
            return True
        in_force = await stored.seen(self.store, device.id, self.now())
        if in_force and self._device_of.get(conn) == device.id:
            return True  # (else signed out while the update was in flight)
        self.forget(conn)
        return False

    async def _device_of_token(self, token: str) -> DeviceInfo:
        found = await stored.signed_in(self.store, token_hash(token))
        assert found is not None, "a device made with its player"
        return found[1]

    # -- the player's own devices ------------------------------------------------------
    async def listed(self, player: PlayerInfo) -> list[DeviceInfo]:
        """The player's devices in force, oldest first."""
        return await stored.in_force(self.store, player.id, self.now())

    async def revoke(self, player: PlayerInfo, device_id: int) -> None:
        """Revoke one of the player's devices in force (`not_found` otherwise); its
        connections, on every node, are signed out."""
        revoked = await stored.revoke(self.store, player.id, [device_id], None, self.now())
        if not revoked:
            raise CompetitionError(
                "not_found",
                TEXTS["no_device"].format(id=device_id),
                reason="no_device",
                params={"id": device_id},
            )
        self.signed_out(revoked)

    async def revoke_others(self, player: PlayerInfo, current: int | None) -> int:
        """Revoke every device of the player but `current`; how many were."""
        revoked = await stored.revoke(self.store, player.id, None, current, self.now())
        self.signed_out(revoked)
        return len(revoked)

    async def revoke_all(self, player: PlayerInfo) -> list[int]:
        """Revoke every device of the player (a deleted account); the ids."""
        revoked = await stored.revoke(self.store, player.id, None, None, self.now())
        self.signed_out(revoked)
        return revoked

    # -- connections -------------------------------------------------------------------
    def attach(self, device_id: int, conn: Hashable, sign_out: SignOut) -> None:
        """`conn` is signed in with the device: `sign_out` is called when it is revoked."""
        self.forget(conn)
        self._signed_in.setdefault(device_id, {})[conn] = sign_out
        self._device_of[conn] = device_id

    def forget(self, conn: Hashable) -> None:
        """`conn` is signed in no more (signed in again, signed out, or gone)."""
        device_id = self._device_of.pop(conn, None)
        if device_id is not None:
            held = self._signed_in.get(device_id, {})
            held.pop(conn, None)
            if not held:
                self._signed_in.pop(device_id, None)

    def signed_out(self, device_ids: Iterable[int]) -> None:
        """These devices were revoked (here or on another node): sign their connections
        out. A connection already signed out is not told twice."""
        for device_id in device_ids:
            for conn, sign_out in list(self._signed_in.pop(device_id, {}).items()):
                self._device_of.pop(conn, None)
                try:
                    sign_out()
                except Exception:
                    log.exception("signing out a connection of device %s", device_id)

    async def recheck(self) -> None:
        """After notices may have been lost: sign out connections of devices revoked."""
        revoked = await stored.revoked_among(self.store, list(self._signed_in))
        self.signed_out(revoked)
