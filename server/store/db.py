"""Engines for the two backends, and schema migration to head."""

from __future__ import annotations

import os
import re
import socket
import time
from contextvars import ContextVar
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import event, text
from sqlalchemy.engine import URL, ExceptionContext, make_url
from sqlalchemy.exc import ArgumentError
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from server.i18n.said import Said, said
from server.ops import faults
from server.store.sqlite_process import PRAGMAS

if TYPE_CHECKING:  # alembic is imported when a migration runs: a node whose database is
    # at head does not need it (imports are most of a node's start-up)
    from alembic.config import Config

DEFAULT_URL = "sqlite+aiosqlite:///samedeal.db"
MIGRATIONS = Path(__file__).resolve().parents[2] / "migrations"
# PostgreSQL behind a network that can go silent (a partition, a blackholed route): asyncpg
# waits for a reply without limit by default, and the kernel's keepalive takes hours, so
# one statement on a dead connection (the pool's pre-ping included) held the group-commit
# writer, and every act queued behind it, /healthz and a graceful stop, until the network
# came back (tests/e2e/test_faults.py, the blackholed cut).
CONNECT_TIMEOUT_S = 5.0  # to open a connection (asyncpg's default: 60 s)
COMMAND_TIMEOUT_S = 5.0  # for one statement; the connection is then dropped, not reused
# The server ends a session left idle inside a transaction this long: a node cut off in
# the middle of a batch would otherwise keep its rows locked (another node's write of the
# same entry waits) until PostgreSQL notices the connection is gone.
IDLE_IN_TRANSACTION_MS = 10_000
# The engine's pool on PostgreSQL: its connections, and how many more it may open at a
# peak; with pg_coordination.OWN_CONNECTIONS, a node's whole budget (docs/RELIABILITY.md).
POOL_SIZE, POOL_OVERFLOW = 10, 10
_migrating: ContextVar[bool] = ContextVar("_migrating", default=False)  # no limits then


def database_url(explicit: str | None = None) -> str:
    """--database-url, else SAMEDEAL_DATABASE_URL, else the SQLite default."""
    return explicit or os.environ.get("SAMEDEAL_DATABASE_URL") or DEFAULT_URL


class BadDatabaseUrl(ValueError):
    """A database URL the server cannot use; the message fits one line."""


def check_url(url: str) -> str:
    """The URL the server opens for `url`, or BadDatabaseUrl saying why not.

    `sqlite://` and `postgresql://` (and `postgres://`) are taken for their async drivers;
    a relative SQLite path (three slashes, `sqlite:///x.db`) is made absolute against the
    current directory (`describe` says which file); other backends are refused."""
    text = url.strip()
    if text.startswith("postgres://"):
        text = "postgresql://" + text[len("postgres://") :]
    try:
        parsed = make_url(text)
    except ArgumentError:
        raise BadDatabaseUrl(said("server.database.not_url", url=repr(url[:60]))) from None
    backend, driver = parsed.get_backend_name(), parsed.get_driver_name()
    if backend == "sqlite" and driver in ("pysqlite", "aiosqlite"):
        return _sqlite_url(parsed, url)
    if backend == "postgresql" and driver in ("psycopg", "psycopg2", "asyncpg"):
        if not parsed.database:
            raise BadDatabaseUrl(said("server.database.no_database", url=repr(url[:60])))
        return parsed.set(drivername="postgresql+asyncpg").render_as_string(hide_password=False)
    raise BadDatabaseUrl(said("server.database.unsupported", backend=f"{backend}+{driver}"))


def _sqlite_url(parsed: URL, given: str) -> str:
    name = parsed.database or ""
    if name in ("", ":memory:") or name.startswith("file:"):
        raise BadDatabaseUrl(said("server.database.in_memory", url=repr(given[:60])))
    path = Path(name).expanduser()
    path = path if path.is_absolute() else Path.cwd() / path
    if not path.parent.is_dir():
        raise BadDatabaseUrl(said("server.database.no_directory", path=str(path.parent)))
    if path.is_dir():
        raise BadDatabaseUrl(said("server.database.is_directory", path=str(path)))
    return parsed.set(drivername="sqlite+aiosqlite", database=str(path)).render_as_string()


def describe(url: str, given: str) -> Said:
    """Which database a checked URL opens (`given`: as the user wrote it): English for a
    log line, a `Said` that the command lines say in their language."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        where = {"name": parsed.database, "host": parsed.host or "localhost"}
        if parsed.username:
            return said(
                "server.database.postgres", **where, port=parsed.port or 5432, user=parsed.username
            )
        return said("server.database.postgres_current_user", **where, port=parsed.port or 5432)
    try:
        name = make_url(given.strip()).database or ""
    except ArgumentError:
        name = ""
    if given == DEFAULT_URL:
        return said("server.database.sqlite_default", path=parsed.database)
    if not Path(name).expanduser().is_absolute():
        return said("server.database.sqlite_relative", path=parsed.database)
    return said("server.database.sqlite", path=parsed.database)


def wait_reachable(url: str, wait_s: float, attempt_s: float = 2.0) -> None:
    """For PostgreSQL over TCP: return once its port accepts a connection, or raise
    ConnectionError after `wait_s` seconds (0: one attempt) with one line saying so (a Said). A
    database that is down is reported in bounded time, never retried forever."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "postgresql" or not parsed.host:
        return
    host, port = parsed.host, parsed.port or 5432
    end = time.monotonic() + wait_s
    while True:
        try:
            with socket.create_connection((host, port), timeout=attempt_s):
                return
        except OSError as exc:
            why = exc.strerror or type(exc).__name__
            if time.monotonic() + 1 >= end:
                where = f"{host}:{port}"
                raise ConnectionError(
                    said(
                        "server.db.unreachable_waited", where=where, why=why, seconds=f"{wait_s:g}"
                    )
                    if wait_s
                    else said("server.db.unreachable", where=where, why=why)
                ) from None
        time.sleep(1)


def make_engine(url: str) -> AsyncEngine:
    """An async engine; SQLite gets WAL, a busy timeout, foreign keys and full sync."""
    if url.startswith("sqlite"):
        engine = create_async_engine(url, connect_args={"timeout": 30})
        event.listen(engine.sync_engine, "connect", _sqlite_pragmas)
        return engine
    connect_args: dict[str, Any] = {"timeout": CONNECT_TIMEOUT_S}
    if not _migrating.get():  # a migration's statements may take long
        connect_args["command_timeout"] = COMMAND_TIMEOUT_S
        connect_args["server_settings"] = {
            "idle_in_transaction_session_timeout": str(IDLE_IN_TRANSACTION_MS)
        }
    engine = create_async_engine(
        url,
        pool_size=POOL_SIZE,
        max_overflow=POOL_OVERFLOW,
        pool_pre_ping=True,
        connect_args=connect_args,
    )
    event.listen(engine.sync_engine, "handle_error", _database_fault_drops_connection)
    return engine


def _database_fault_drops_connection(ctx: ExceptionContext) -> None:
    """A statement that failed because the database is away (server/ops/faults.py: say a
    backend terminated between two operations, which asyncpg reports as "another
    operation (2) is in progress") invalidates its connection: never back in the pool."""
    if faults.kind_of(ctx.original_exception) == "database":
        ctx.is_disconnect = True


def _sqlite_pragmas(dbapi_conn: object, _record: object) -> None:
    cur = dbapi_conn.cursor()  # type: ignore[attr-defined]
    for pragma in PRAGMAS:  # the writer process uses the same settings
        cur.execute(f"PRAGMA {pragma}")
    cur.close()


def alembic_config(url: str) -> Config:
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.set_main_option("sqlalchemy.url", url)
    return cfg


def migrate(url: str, revision: str = "head") -> None:
    """Upgrade the database at `url` to `revision` (blocking; call from a thread)."""
    from alembic import command

    token = _migrating.set(True)  # migrations/env.py makes its engine with make_engine
    try:
        command.upgrade(alembic_config(url), revision)
    finally:
        _migrating.reset(token)


def downgrade(url: str, revision: str = "base") -> None:
    from alembic import command

    token = _migrating.set(True)
    try:
        command.downgrade(alembic_config(url), revision)
    finally:
        _migrating.reset(token)


_REVISION = re.compile(
    r"""^(down_revision|revision)\b[^=\n]*=\s*(None|"[^"]*"|'[^']*')\s*$""", re.M
)


def head_revision(versions: Path = MIGRATIONS / "versions") -> str | None:
    """The migrations' head, read from their files without alembic: the one revision no
    other names as its down_revision. None when that is not plain (a merge, a branch, a
    file it cannot read): then alembic decides."""
    revisions: list[str] = []
    downs: set[str] = set()
    for path in sorted(versions.glob("*.py")):
        found = dict(_REVISION.findall(path.read_text()))
        if "revision" not in found or "down_revision" not in found:
            return None
        revisions.append(found["revision"].strip("\"'"))
        if found["down_revision"] != "None":
            downs.add(found["down_revision"].strip("\"'"))
    heads = set(revisions) - downs
    return heads.pop() if len(heads) == 1 and len(set(revisions)) == len(revisions) else None


async def at_head(engine: AsyncEngine) -> bool:
    """Whether the database records the migrations' head (nothing to migrate); False
    when it cannot tell (no version table yet, the database away: alembic then runs)."""
    head = head_revision()
    if head is None:
        return False
    try:
        async with engine.connect() as conn:
            rows = (await conn.execute(text("SELECT version_num FROM alembic_version"))).all()
    except Exception:
        return False
    return [r[0] for r in rows] == [head]
