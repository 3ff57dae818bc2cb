"""Expected faults, told apart from bugs, and logged one line per kind and interval.

An expected fault is the world failing, not the code: the database away (restarting, cut
off, out of connections), the disk full or read-only, a peer or a client gone. Each is
answered as the contract says (`internal`, a retry, a dropped connection) and logged as
ONE structured warning per kind and interval, with how many were folded into it:

    fault kind=database where=act count=131 last=ConnectionDoesNotExistError: ...

A traceback in the log therefore means a bug. Faults are recognised by the exceptions'
classes along the cause chain, by name, so that any layer can ask without importing the
database drivers (the layers' contracts: pyproject.toml).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

log = logging.getLogger("samedeal.faults")
INTERVAL_S = 10.0  # at most one line per kind (and place) in this long
# Class names (anywhere in an exception's MRO) that mean the database is away.
_DATABASE = frozenset(
    {
        "PostgresConnectionError",  # asyncpg: SQLSTATE class 08
        "ConnectionDoesNotExistError",
        "CannotConnectNowError",  # starting up or shutting down
        "OperatorInterventionError",  # terminated by the administrator, shut down
        "TooManyConnectionsError",
        "InterfaceError",  # asyncpg's and SQLAlchemy's: the connection is closed
        "DisconnectionError",  # SQLAlchemy's pool
        "ConnectionError",  # builtin (refused, reset)
        "TimeoutError",  # builtin (a silent network), SQLAlchemy's pool
    }
)
# Words of SQLite's (and the OS's) messages that mean the disk refuses writes.
_DISK = ("disk is full", "no space left", "readonly", "read-only", "disk i/o error")
# ... and of PostgreSQL's that mean it takes no connection now (restarting, or the
# database closed to connections: ALLOW_CONNECTIONS false).
_AWAY = ("not currently accepting connections", "the database system is")
_CLIENT = frozenset({"ConnectionClosed", "ConnectionClosedError", "ConnectionClosedOK"})
# asyncpg's InternalClientError on a connection whose backend is gone. PostgreSQL's FATAL
# for a terminated backend (pg_terminate_backend, a restart, a shutdown) can arrive while
# the connection is idle, between two operations: asyncpg's protocol, expecting nothing,
# moves to state 2 ("error consume") and waits for a sync that never comes, then to
# "failed" when the socket closes. The next operation on that connection is refused with
# one of these messages: the connection is dead, a fault of the database, and it is
# dropped (never reused). Any other state in "another operation (N) is in progress" (an
# operation started while another runs on the same connection: a reuse) stays a bug.
_DEAD_PROTOCOL = (
    "another operation (2) is in progress",  # state 2: PROTOCOL_ERROR_CONSUME
    'protocol is in the "failed" state',  # the socket closed
    "not connected",
)


def _chain(exc: BaseException) -> list[BaseException]:
    """exc, its causes and contexts (and a DBAPI error's original), each once."""
    seen: list[BaseException] = []
    todo: list[BaseException | None] = [exc]
    while todo:
        e = todo.pop()
        if e is None or any(e is s for s in seen) or len(seen) > 20:
            continue
        seen.append(e)
        todo += [e.__cause__, e.__context__, getattr(e, "orig", None)]
    return seen


def kind_of(exc: BaseException) -> str | None:
    """'disk', 'database' or 'client' for an expected fault; None for anything else (a
    bug: it deserves a traceback)."""
    chain = _chain(exc)
    for e in chain:
        if any(w in str(e).lower() for w in _DISK):
            return "disk"
    for e in chain:
        names = {c.__name__ for c in type(e).__mro__}
        if names & _CLIENT:
            return "client"
        if names & _DATABASE or getattr(e, "connection_invalidated", False):
            return "database"
        if type(e).__name__ == "InternalClientError" and dead_protocol(e):
            return "database"
        if any(w in str(e) for w in _AWAY):
            return "database"
    return None


def dead_protocol(exc: BaseException) -> bool:
    """Whether asyncpg's InternalClientError `exc` says its connection is dead (its
    backend terminated between two operations): see _DEAD_PROTOCOL."""
    text = str(exc)
    return any(w in text for w in _DEAD_PROTOCOL)


def one_line(exc: BaseException) -> str:
    """The exception's class and message on one line, cut at 200 characters."""
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text[:200]}" if text else type(exc).__name__


class FaultLog:
    """One warning per (kind, where) and interval; the faults in between are counted
    and reported with the next line."""

    def __init__(
        self,
        logger: logging.Logger = log,
        interval_s: float = INTERVAL_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.logger, self.interval_s, self.clock = logger, interval_s, clock
        self.seen: dict[str, int] = {}  # faults by kind, all told (metrics, tests)
        self._last: dict[tuple[str, str], float] = {}
        self._folded: dict[tuple[str, str], int] = {}

    def report(self, exc: BaseException, where: str) -> bool:
        """Log `exc` if it is an expected fault (folded into the interval's line); False
        when it is not (the caller logs it as the bug it is)."""
        kind = kind_of(exc)
        if kind is None:
            return False
        self.seen[kind] = self.seen.get(kind, 0) + 1
        key = (kind, where)
        now = self.clock()
        self._folded[key] = self._folded.get(key, 0) + 1
        last = self._last.get(key)
        if last is None or now - last >= self.interval_s:
            self._last[key] = now
            count = self._folded.pop(key)
            self.logger.warning(
                "fault kind=%s where=%s count=%d last=%s", kind, where, count, one_line(exc)
            )
        return True


FAULTS = FaultLog()  # the process's


def report(exc: BaseException, where: str) -> bool:
    """`FAULTS.report`: True when `exc` was an expected fault (and is logged as one)."""
    return FAULTS.report(exc, where)
