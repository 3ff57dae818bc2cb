"""The store's tests: each on SQLite and on PostgreSQL (tests/conftest.py `db_url`)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from server.store.repository import Store


@pytest.fixture
async def store(db_url: str) -> AsyncIterator[Store]:
    """A fresh store on each database the suite runs on."""
    s = await Store.open(db_url)
    try:
        yield s
    finally:
        await s.close()
