"""Test helpers: real server processes and their command line."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

LISTENING = re.compile(r"listening on ws://127\.0\.0\.1:(\d+)/ws")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Killable:
    """The real server program on a fixed port, killed and restarted at will."""

    def __init__(self, url: str, port: int, log: Path) -> None:
        self.url, self.port, self.log = url, port, log
        self.proc: subprocess.Popen[bytes] | None = None
        self.starts = 0

    def start(self) -> None:
        self.starts += 1
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "server",
                "--database-url",
                self.url,
                "serve",
                "--port",
                str(self.port),
                "--no-demo",
            ],
            stdout=subprocess.DEVNULL,
            stderr=self.log.open("a"),
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/healthz", timeout=1):
                    return
            except OSError:
                time.sleep(0.05)
        raise TimeoutError(self.log.read_text()[-3000:])

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(timeout=30)


def cli(url: str, *args: str) -> subprocess.CompletedProcess[str]:
    """`samedeal-server --database-url URL ARGS...`; a SQLite file not made yet is made
    first by `migrate`, as an operator would (the operator's commands refuse a database
    that does not exist: tests/cli/test_missing_database.py)."""
    if url.startswith("sqlite") and args[:1] != ("migrate",):
        path = Path(url.split(":///", 1)[1])
        if not path.exists():
            made = cli(url, "migrate")
            assert made.returncode == 0, made.stderr
    return subprocess.run(
        [sys.executable, "-m", "server", "--database-url", url, *args],
        capture_output=True,
        text=True,
        timeout=60,
    )


class ServerProcess:
    """`python -m server serve` on a free port (`extra`: more serve arguments)."""

    def __init__(self, url: str, log: Path, extra: tuple[str, ...] = ()) -> None:
        self.log = log
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "server", "--database-url", url, "serve", "--port", "0", *extra],
            stdout=subprocess.DEVNULL,
            stderr=log.open("w"),
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        self.port = self._wait_port()

    def _wait_port(self) -> int:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            found = LISTENING.search(self.log.read_text())
            if found:
                return int(found.group(1))
            if self.proc.poll() is not None:
                raise RuntimeError(self.log.read_text())
            time.sleep(0.05)
        raise TimeoutError(self.log.read_text())

    def stop(self, sig: int = signal.SIGTERM) -> int:
        self.proc.send_signal(sig)
        return self.proc.wait(timeout=30)


async def samedeal(
    env: dict[str, str], *args: str, stdin: bytes | None = None
) -> tuple[int, str, str]:
    """The `samedeal` client program run with `args`, `stdin` piped to it when given:
    (exit status, stdout, stderr)."""
    proc = await samedeal_started(env, *args, stdin=stdin is not None)
    out, err = await asyncio.wait_for(proc.communicate(stdin), 120)
    return proc.returncode or 0, out.decode(), err.decode()


async def samedeal_started(
    env: dict[str, str], *args: str, stdin: bool = False
) -> asyncio.subprocess.Process:
    """The `samedeal` client program started with `args`: stdout and stderr piped (and
    stdin when asked)."""
    return await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "client_cli",
        *args,
        env=env,
        stdin=asyncio.subprocess.PIPE if stdin else None,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )


async def until_printed(proc: asyncio.subprocess.Process, pattern: str) -> re.Match[str]:
    """Read `proc`'s stdout a line at a time until what it printed matches `pattern`."""
    assert proc.stdout is not None
    shown = ""
    while (found := re.search(pattern, shown)) is None:
        line = await asyncio.wait_for(proc.stdout.readline(), 60)
        assert line, shown
        shown += line.decode()
    return found


# -- several nodes and their database ---------------------------------------------
def start_nodes(
    urls: list[str], folder: Path, extra: tuple[str, ...] = ("--no-demo",)
) -> list[ServerProcess]:
    """One server process per database URL, started at once (each waits for its port);
    all are stopped again when one fails to start."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(len(urls)) as pool:
        futures = [
            pool.submit(ServerProcess, url, folder / f"node{i}.log", extra)
            for i, url in enumerate(urls)
        ]
    started, failure = [], None
    for future in futures:
        try:
            started.append(future.result())
        except Exception as exc:
            failure = exc
    if failure is not None:
        for node in started:
            node.stop(signal.SIGKILL)
        raise failure
    return started


def healthz(port: int, timeout: float = 30) -> tuple[int, float]:
    """(HTTP status of /healthz, seconds it took); status 0 when no answer came."""
    start = time.monotonic()
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=timeout) as r:
            status = r.status
    except urllib.error.HTTPError as e:
        status = e.code
    except OSError:
        status = 0
    return status, time.monotonic() - start


class DatabaseRestart:
    """What a restart of PostgreSQL does to the nodes of ONE database, simulated on that
    database alone (the machine's PostgreSQL is shared: other tests, other helpers): new
    connections refused (`ALLOW_CONNECTIONS false`), every session of the database ended
    (`pg_terminate_backend`, as a fast shutdown does), and connections allowed again after
    `refuse_s`. The chaos bench does the same (bench/chaos.py)."""

    def __init__(self, admin_dsn: str, database: str) -> None:
        self.admin_dsn, self.database = admin_dsn, database
        self.restarts = 0
        self.ended = 0  # sessions ended, all told

    async def restart(self, refuse_s: float = 2.0) -> None:
        import asyncpg

        conn = await asyncpg.connect(self.admin_dsn, timeout=10)
        try:
            await conn.execute(f'ALTER DATABASE "{self.database}" ALLOW_CONNECTIONS false')
            self.ended += await conn.fetchval(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
                " WHERE datname = $1 AND pid <> pg_backend_pid()",
                self.database,
            )
            await asyncio.sleep(refuse_s)
        finally:
            await conn.execute(f'ALTER DATABASE "{self.database}" ALLOW_CONNECTIONS true')
            await conn.close()
        self.restarts += 1
