"""The store's tests run on each database the suite runs on."""

from __future__ import annotations

import pytest

from server.store.repository import Store


@pytest.fixture
def store(any_store: Store) -> Store:
    """A store on SQLite, and on PostgreSQL (tests/conftest.py's `any_store`)."""
    return any_store
