"""Shared fixtures: the project's own copy of the contract's vectors."""

from __future__ import annotations

import asyncio
import json
import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

DATA = Path(__file__).parent / "data"

# Servers the tests start as processes run load from one address (loopback): the
# per-address limits are lifted there (0), as for benches; tests of the limits pass
# the flags themselves (README, "Limits").
os.environ.setdefault("SAMEDEAL_MAX_CONNECTIONS_PER_IP", "0")
os.environ.setdefault("SAMEDEAL_MAX_REGISTRATIONS_PER_MINUTE", "0")


def load_vector(name: str) -> Any:
    return json.loads((DATA / name).read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def drbg_vectors() -> dict[str, Any]:
    return load_vector("drbg-v1.json")


@pytest.fixture(scope="session")
def gaps_game_1() -> dict[str, Any]:
    return load_vector("gaps-game-1.json")


# -- databases ---------------------------------------------------------------
PG_ADMIN_DSN = os.environ.get("SAMEDEAL_TEST_PG", "postgresql://postgres@127.0.0.1:5432/postgres")


def _pg_admin(sql: str) -> None:
    import asyncpg

    async def run() -> None:
        conn = await asyncpg.connect(PG_ADMIN_DSN, timeout=5)
        try:
            await conn.execute(sql)
        finally:
            await conn.close()

    asyncio.run(run())


def pg_available() -> bool:
    try:
        _pg_admin("SELECT 1")
        return True
    except Exception:
        return False


def require_pg() -> None:
    """Skip without PostgreSQL, except under CI=true where its absence is a failure."""
    if pg_available():
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"PostgreSQL is required under CI=true and {PG_ADMIN_DSN} does not answer")
    pytest.skip("PostgreSQL not reachable (these tests run under CI=true)")


@pytest.fixture
def pg_url() -> Iterator[str]:
    """A fresh PostgreSQL database for one test, dropped afterwards."""
    require_pg()
    name = f"samedeal_test_{uuid.uuid4().hex[:12]}"
    _pg_admin(f'CREATE DATABASE "{name}"')
    base = PG_ADMIN_DSN.rsplit("/", 1)[0].replace("postgresql://", "postgresql+asyncpg://")
    try:
        yield f"{base}/{name}"
    finally:
        _pg_admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite+aiosqlite:///{tmp_path / 'samedeal.db'}"


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest) -> str:
    """Each test using it runs on SQLite and on PostgreSQL."""
    fixture = "sqlite_url" if request.param == "sqlite" else "pg_url"
    return request.getfixturevalue(fixture)
