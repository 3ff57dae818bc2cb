"""Store's calls on players (players.py), on SQLite and PostgreSQL: a name taken
case-insensitively, found by token hash or name, the admin role granted."""

from __future__ import annotations

import pytest

from server.domain.model import NameTaken
from server.store.repository import Store
from tests.support.store_records import NOW


async def test_players(store: Store) -> None:
    alice = await store.create_player("Alice", "h1", NOW)
    assert alice.name == "Alice" and not alice.admin
    with pytest.raises(NameTaken):
        await store.create_player("ALICE", "h2", NOW)
    assert (await store.player_by_token_hash("h1")) == alice
    assert await store.player_by_token_hash("nope") is None
    assert (await store.player_by_name("alice")).id == alice.id
    assert await store.set_admin("alice")
    assert (await store.player_by_token_hash("h1")).admin
    assert not await store.set_admin("nobody")
