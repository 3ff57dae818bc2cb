"""Shared fixtures: the project's own copy of the contract's vectors."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import signal
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from tests.support import orphans

if TYPE_CHECKING:
    from server.store.repository import Store

DATA = Path(__file__).parent / "data"

# Servers the tests start as processes run load from one address (loopback): the
# per-address limits are lifted there (0), as for benches; tests of the limits pass
# the flags themselves (docs/LIMITS.md).
os.environ.setdefault("SAMEDEAL_MAX_CONNECTIONS_PER_IP", "0")
os.environ.setdefault("SAMEDEAL_MAX_REGISTRATIONS_PER_MINUTE", "0")
os.environ.setdefault("SAMEDEAL_MAX_SIGN_INS_PER_MINUTE", "0")

# Every process the run starts inherits this tag (environment), so that the run's end can
# find any that outlives it, wherever it was reparented (pytest_sessionfinish below).
RUN_TAG = os.environ.setdefault(orphans.RUN_TAG, uuid.uuid4().hex)
ORPHAN_GRACE_S = 15.0  # for processes told to stop at the very end to finish stopping


def _left_behind() -> dict[int, str]:
    """The run's processes still running but this one and what ends with it: its own
    pool workers (they die with it) and resource tracker (its pipe closes then)."""
    ours = orphans.descendants(os.getpid())
    return {
        pid: cmd
        for pid, cmd in orphans.tagged(RUN_TAG).items()
        if not (pid in ours and "multiprocessing" in cmd)
    }


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """The run fails when a process it started outlives it (they are killed, and named)."""
    if not Path("/proc/self/environ").exists():
        return
    deadline = time.monotonic() + ORPHAN_GRACE_S
    while (left := _left_behind()) and time.monotonic() < deadline:
        time.sleep(0.2)
    if not left:
        return
    for pid in left:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    listed = "\n".join(f"  {pid}: {cmd[:200]}" for pid, cmd in sorted(left.items()))
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    message = f"{len(left)} process(es) started by this run outlived it (killed):\n{listed}"
    if reporter is not None:
        reporter.write_line(message, red=True)
    session.exitstatus = pytest.ExitCode.TESTS_FAILED


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


@pytest.fixture(scope="session")
def migrated_sqlite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An empty SQLite database at the schema's head, made once per run (a migration
    takes most of a second; a copy, a millisecond)."""
    path = tmp_path_factory.mktemp("migrated") / "samedeal.db"

    async def migrate() -> None:
        from server.store.repository import Store

        store = await Store.open(f"sqlite+aiosqlite:///{path}")
        await store.close()

    asyncio.run(migrate())
    return path


def at_head(url: str, migrated: Path) -> str:
    """`url`, a SQLite file not made yet, made now as a copy of `migrated` (the schema at
    head: Store.open then migrates nothing); any other URL as it is."""
    prefix = "sqlite+aiosqlite:///"
    if url.startswith(prefix) and not Path(url[len(prefix) :]).exists():
        shutil.copy(migrated, url[len(prefix) :])
    return url


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest) -> str:
    """Each test using it runs on SQLite and on PostgreSQL."""
    fixture = "sqlite_url" if request.param == "sqlite" else "pg_url"
    return request.getfixturevalue(fixture)


@pytest.fixture
async def any_store(db_url: str, migrated_sqlite: Path) -> AsyncIterator[Store]:
    """A store on each database the suite runs on (SQLite, and PostgreSQL), closed after;
    SQLite's a copy of the migrated file (`at_head`)."""
    from server.store.repository import Store

    store = await Store.open(at_head(db_url, migrated_sqlite))
    try:
        yield store
    finally:
        await store.close()
