"""The store's tests: each on SQLite and on PostgreSQL (tests/conftest.py `db_url`)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from server.store.repository import Store
from tests.conftest import at_head


@pytest.fixture
async def store(db_url: str, migrated_sqlite: Path) -> AsyncIterator[Store]:
    """A fresh store on each database the suite runs on (SQLite's a copy of a migrated
    file)."""
    s = await Store.open(at_head(db_url, migrated_sqlite))
    try:
        yield s
    finally:
        await s.close()
