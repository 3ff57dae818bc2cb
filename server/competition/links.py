"""Linking a new device (v1.4, PROTOCOL.md "Accounts", after RFC 8628's device
authorization grant): the new device starts a link and shows its user code; a device
already signed in approves the code; the new device polls with its secret poll code and
fetches its token once.

Both codes are stored only as hashes. The user code is short (20^8), so guessing is
limited: wrong codes count against the approving player and address on every node.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from server.competition.devices import Devices, label_of
from server.competition.errors import CompetitionError
from server.competition.players import token_hash
from server.domain.accounts import (
    LINK_ALPHABET,
    LINK_CODE_LENGTH,
    DeviceInfo,
    code_key,
    shown_code,
)
from server.domain.model import PlayerInfo
from server.store import links as stored
from server.store.links import LinkRefusal, NewLink
from server.store.models import LinkCode
from server.store.repository import Store

TTL_S = 600  # a link's life (serve --link-code-ttl)
INTERVAL_S = 2  # the least time between two polls of one link (1..5)
GUESSES_PER_MINUTE = 10  # wrong codes per player or address before approvals pause
TEXTS = {
    "not_found": "no such link code waiting for approval",
    "expired": "this link code has expired: start again on the new device",
    "pending": "not approved yet: poll again after interval_s",
    "too_soon": "polled too soon: wait interval_s between polls",
    "guesses": "too many wrong link codes: wait a minute",
    "no_poll": "no such link, or its token was fetched already",
}


@dataclass(frozen=True, slots=True)
class Started:
    """A link as its new device gets it: the code to show, the poll code to keep."""

    code: str
    poll: str
    expires_at: datetime
    interval_s: int


async def _waiting(store: Store, code_hash: str, now: datetime) -> LinkCode | LinkRefusal:
    return await stored.waiting(store, code_hash, now)


class Links:
    """Links started, approved and fetched; guesses counted."""

    def __init__(
        self, store: Store, devices: Devices, now: Callable[[], datetime], ttl_s: int = TTL_S
    ) -> None:
        self.store = store
        self.devices = devices
        self.now = now
        self.ttl_s = ttl_s  # serve --link-code-ttl
        self.interval_s = INTERVAL_S

    async def start(self, label: str | None) -> Started:
        """A new link for a device labelled `label` (`bad_request` for a bad label)."""
        label = label_of(label)
        now = self.now()
        expires = now + timedelta(seconds=self.ttl_s)
        while True:
            code = "".join(secrets.choice(LINK_ALPHABET) for _ in range(LINK_CODE_LENGTH))
            poll = secrets.token_urlsafe(32)
            link = NewLink(token_hash(code), token_hash(poll), label, now, expires, self.interval_s)
            if await stored.start(self.store, link):
                return Started(shown_code(code), poll, expires, self.interval_s)

    async def approve(self, player: PlayerInfo, code: str, address: str) -> DeviceInfo:
        """The approving player's new device for the link of `code`; `rate_limited`
        (limit `link_codes`) after too many wrong codes, `not_found`, `expired`."""
        found = await self._guess(player, code, address, stored.approve, player.id)
        assert isinstance(found, DeviceInfo)
        return found

    async def describe(
        self, player: PlayerInfo, code: str, address: str
    ) -> tuple[str | None, datetime]:
        """What a signed-in player is asked to approve (beyond the contract): the label
        and expiry of the link of `code`; refused, and counted, as `approve` is."""
        found = await self._guess(player, code, address, _waiting)
        assert isinstance(found, LinkCode)
        return found.label, found.expires_at

    async def _guess(
        self, player: PlayerInfo, code: str, address: str, step: Any, *more: Any
    ) -> Any:
        now = self.now()
        since = now - timedelta(minutes=1)
        if await stored.guesses(self.store, player.id, address, since) >= GUESSES_PER_MINUTE:
            raise CompetitionError(
                "rate_limited", TEXTS["guesses"], reason="link_guesses", limit="link_codes"
            )
        key = code_key(code)
        found = (
            LinkRefusal.NOT_FOUND
            if key is None
            else await step(self.store, token_hash(key), *more, now)
        )
        if found is LinkRefusal.NOT_FOUND:
            await stored.count_guess(self.store, player.id, address, now)
            raise CompetitionError("not_found", TEXTS["not_found"], reason="no_link_code")
        if found is LinkRefusal.EXPIRED:
            raise CompetitionError("expired", TEXTS["expired"], reason="link_expired")
        return found

    async def poll(self, poll: str) -> tuple[PlayerInfo, DeviceInfo, str]:
        """The linked player, device and its token (made now, given once); else
        `authorization_pending`, `rate_limited` (too soon), `expired`, `not_found`."""
        token = secrets.token_urlsafe(32)
        found = await stored.poll(self.store, token_hash(poll), token_hash(token), self.now())
        if isinstance(found, tuple):
            return found[0], found[1], token
        if found is LinkRefusal.TOO_SOON:
            raise CompetitionError("rate_limited", TEXTS["too_soon"], reason="poll_too_soon")
        if found is LinkRefusal.PENDING:
            raise CompetitionError("authorization_pending", TEXTS["pending"])
        if found is LinkRefusal.EXPIRED:
            raise CompetitionError("expired", TEXTS["expired"], reason="link_expired")
        raise CompetitionError("not_found", TEXTS["no_poll"], reason="no_link")
