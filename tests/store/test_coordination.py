"""Store's calls for several nodes (coordination.py), on SQLite and PostgreSQL: ping (the
notices, the leader's lock and once-only work run across nodes in tests/e2e/)."""

from __future__ import annotations

from server.store.repository import Store


async def test_ping(store: Store) -> None:
    assert await store.ping()
