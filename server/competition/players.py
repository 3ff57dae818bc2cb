"""Players: registration (signing in with a token is a device's: competition/devices.py).

A token is 32 random bytes (URL-safe text) shown once; the store keeps only its SHA-256
and a player is found by that hash. Looking up by hash leaks nothing useful through
timing: an attacker who learned how much of a stored *hash* their guess matched would
still need a SHA-256 preimage to make a token that matches more, so no comparison of
secrets is left to make in constant time (docs/COMPETITION.md, "Tokens").
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable
from datetime import datetime

from server.competition.errors import CompetitionError
from server.domain import names
from server.domain.accounts import DeviceInfo
from server.domain.model import NameErased, NameTaken, PlayerInfo
from server.store import ratings as stored_ratings
from server.store.repository import Store


def checked_name(name: str) -> str:
    """The name as stored (NFC, server/domain/names.py); `bad_request` saying why not."""
    try:
        return names.normalise(name)
    except names.BadName as e:
        raise CompetitionError("bad_request", str(e), reason="bad_name", params=e.params) from None


def token_hash(token: str) -> str:
    """What the store keeps of a token: its SHA-256, hex."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


class Players:
    """Register a name (a new token) for a player or a bot (PROTOCOL.md `register` with
    `"bot": true`: a player like any other, marked so that ratings and leaderboards leave
    it out)."""

    def __init__(self, store: Store, now: Callable[[], datetime]) -> None:
        self.store = store
        self.now = now

    async def register(self, name: str, label: str | None = None) -> tuple[PlayerInfo, str]:
        """A new player and their token, its first device labelled `label` (checked by
        the caller); `bad_request` or `name_taken` otherwise."""
        player, _, token = await self.register_device(name, label)
        return player, token

    async def register_device(
        self, name: str, label: str | None = None
    ) -> tuple[PlayerInfo, DeviceInfo, str]:
        """A new player, its first device (labelled `label`, checked by the caller) and
        its token; `bad_request`, or `name_taken` when the name is taken or was a deleted
        account's (said with the name as given)."""
        given, name = name, checked_name(name)
        token = secrets.token_urlsafe(32)
        try:
            made = await self.store.create_account(name, token_hash(token), self.now(), label)
        except NameTaken:
            raise CompetitionError(
                "name_taken", f"the name {name!r} is taken", params={"name": name}
            ) from None
        except NameErased:
            raise CompetitionError(
                "name_taken", f"the name {given!r} is taken", params={"name": given}
            ) from None
        return *made, token

    async def register_bot(self, name: str) -> tuple[PlayerInfo, str]:
        """A new bot and its token; `bad_request` or `name_taken` as for any player."""
        name = checked_name(name)
        token = secrets.token_urlsafe(32)
        try:
            bot = await stored_ratings.create_bot(self.store, name, token_hash(token), self.now())
        except NameTaken:
            raise CompetitionError(
                "name_taken", f"the name {name!r} is taken", params={"name": name}
            ) from None
        return bot, token

    async def grant_admin(self, name: str) -> bool:
        """Make the player named `name` an operator (the operator's command line);
        False when no player has that name."""
        return await self.store.set_admin(name)
