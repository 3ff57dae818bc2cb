"""Coordination: `Store`'s calls for several nodes on one database, the same on both
backends (PostgreSQL's machinery is pg_coordination.py): the other nodes' notices, the lifecycle
leader's lock, once-only work, notices sent with a transaction; on SQLite (one node)
they are local or nothing."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession

from server.ops import faults
from server.store import pg_coordination


class Coordination:
    """A mixin of `Store` (repository.py), which sets these attributes."""

    engine: AsyncEngine
    shared: bool  # other nodes may serve the same database (PostgreSQL)
    dsn: str
    _local_locks: dict[int, asyncio.Lock]
    locks: pg_coordination.AdvisoryLocks | None  # PostgreSQL: the node's one lock connection

    def listener(self, handler: pg_coordination.NoticeHandler) -> pg_coordination.Listener | None:
        """A listener for the other nodes' notices; None where no other node can be."""
        return pg_coordination.Listener(self.dsn, handler) if self.shared else None

    def leadership(self) -> pg_coordination.Leadership | None:
        """The lifecycle leader's lock; None where this node is the only one."""
        return pg_coordination.Leadership(self.dsn) if self.shared else None

    @contextlib.asynccontextmanager
    async def exclusively(self, key: int) -> AsyncIterator[None]:
        """Once-only work: no other holder of `key`, on any node, runs meanwhile."""
        async with self.try_exclusively(key, wait=True):
            yield

    @contextlib.asynccontextmanager
    async def try_exclusively(self, key: int, wait: bool) -> AsyncIterator[bool]:
        """Hold `key` for the block, which gets True; with wait=False it gets False at
        once (nothing held) when another holder, on any node, has it."""
        if self.locks is not None:
            async with self.locks.hold(key, wait) as held:
                yield held
            return
        lock = self._local_locks.setdefault(key, asyncio.Lock())
        if not wait and lock.locked():
            yield False
            return
        async with lock:
            yield True

    async def _notify(self, s: AsyncSession, lines: list[str]) -> None:
        """Notices sent with the session's transaction (delivered at its commit)."""
        if self.shared:
            for payload in pg_coordination.payloads(lines):
                await s.execute(text("SELECT pg_notify('samedeal', :p)"), {"p": payload})

    async def ping(self) -> bool:
        """True when the database answers a trivial query."""
        try:
            conn = await self.engine.connect()
        except Exception:
            return False
        ok = False
        try:
            await asyncio.wait_for(conn.execute(text("SELECT 1")), timeout=2)
            ok = True
        except Exception:  # cut off mid-statement: never back into the pool
            with contextlib.suppress(Exception):
                await conn.invalidate()
        except BaseException:
            with contextlib.suppress(Exception):
                await conn.invalidate()
            raise
        finally:
            try:  # its rollback fails when the backend was terminated just after the SELECT
                await conn.close()
            except Exception as exc:  # the pool has invalidated it (db.py)
                if faults.kind_of(exc) != "database":
                    raise  # a bug
                ok = False
        return ok
