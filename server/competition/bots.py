"""Registering a bot (PROTOCOL v1.3 `register` with `"bot": true`): a player like any
other, marked so that ratings and leaderboards leave it out."""

from __future__ import annotations

import secrets
from datetime import datetime

from server.competition.errors import CompetitionError
from server.competition.players import checked_name, token_hash
from server.domain.model import NameTaken, PlayerInfo
from server.store import ratings as stored
from server.store.repository import Store


async def register_bot(store: Store, name: str, now: datetime) -> tuple[PlayerInfo, str]:
    """A new bot and its token; `bad_request` or `name_taken` as for any player."""
    name = checked_name(name)
    token = secrets.token_urlsafe(32)
    try:
        player = await stored.create_bot(store, name, token_hash(token), now)
    except NameTaken:
        raise CompetitionError("name_taken", f"the name {name!r} is taken") from None
    return player, token
