"""Store's calls for several nodes (coordination.py), on SQLite and PostgreSQL: ping (the
notices, the leader's lock and once-only work run across nodes in tests/e2e/)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from server.store.repository import Store


@pytest.fixture
async def store(db_url: str) -> AsyncIterator[Store]:
    s = await Store.open(db_url)
    yield s
    await s.close()


async def test_ping(store: Store) -> None:
    assert await store.ping()
