"""The store's tests: each on SQLite and on PostgreSQL (tests/conftest.py `db_url`)."""

from __future__ import annotations

import pytest

from server.store.repository import Store


@pytest.fixture
def store(any_store: Store) -> Store:
    """A fresh store on each database the suite runs on (tests/conftest.py `any_store`:
    SQLite's a copy of a migrated file)."""
    return any_store
