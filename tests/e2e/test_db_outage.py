"""PostgreSQL stopped mid-game: errors, never acknowledgements; service resumes by itself.

Runs a private PostgreSQL (initdb in a temporary folder, its own port), never the
machine's shared one.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from tests.support.harness import create_msg, http_get, running_server
from tests.support.processes import free_port


def pg_bin() -> Path | None:
    root = Path("/usr/lib/postgresql")
    versions = sorted(root.glob("*/bin/initdb")) if root.exists() else []
    return versions[-1].parent if versions else None


class PrivatePostgres:
    def __init__(self, folder: Path) -> None:
        self.bin = pg_bin()
        self.data = folder / "pgdata"
        self.port = free_port()
        self.sock = folder / "sock"
        self.sock.mkdir()
        self.as_postgres = os.geteuid() == 0
        if self.as_postgres:
            shutil.chown(folder, "postgres")
            shutil.chown(self.sock, "postgres")
        self._run(
            [
                str(self.bin / "initdb"),
                "-D",
                str(self.data),
                "-A",
                "trust",
                "-U",
                "postgres",
                "--no-sync",
            ]
        )

    def _run(self, cmd: list[str]) -> None:
        if self.as_postgres:
            cmd = ["runuser", "-u", "postgres", "--", *cmd]
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        if done.returncode:
            raise subprocess.CalledProcessError(done.returncode, cmd, done.stdout, done.stderr)

    def start(self) -> None:
        self._run(
            [
                str(self.bin / "pg_ctl"),
                "-D",
                str(self.data),
                "-w",
                "-l",
                str(self.data.parent / "pg.log"),
                "-o",
                f"-p {self.port} -k {self.sock} -c listen_addresses=127.0.0.1",
                "start",
            ]
        )

    def stop(self) -> None:
        self._run([str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop"])

    @property
    def url(self) -> str:
        return f"postgresql+asyncpg://postgres@127.0.0.1:{self.port}/postgres"


@pytest.fixture
def private_pg():
    if pg_bin() is None:
        if os.environ.get("CI") == "true":
            pytest.fail("PostgreSQL server binaries are required under CI=true")
        pytest.skip("no PostgreSQL server binaries")
    folder = Path(tempfile.mkdtemp(prefix="samedeal-pg-"))  # reachable by the postgres user
    pg = PrivatePostgres(folder)
    pg.start()
    try:
        yield pg
    finally:
        with contextlib.suppress(subprocess.CalledProcessError):
            pg.stop()
        shutil.rmtree(folder, ignore_errors=True)


async def test_database_outage_mid_game(private_pg) -> None:
    async with running_server(private_pg.url) as srv:
        op = await srv.admin()
        tid = (await op.ok(**create_msg()))["tournament"]["id"]
        async with srv.client() as c:
            await c.ok(type="register", name="survivor")
            st = await c.ok(type="join", tournament=tid)
            st = await c.ok(
                type="act", tournament=tid, seq=1, action={"kind": "move", **st["view"]["legal"][0]}
            )
            await asyncio.to_thread(private_pg.stop)
            code, _ = await asyncio.to_thread(http_get, f"{srv.http}/healthz")
            assert code == 503
            move = {"kind": "move", **st["view"]["legal"][0]}
            for _ in range(3):
                err = await c.req(type="act", tournament=tid, seq=2, action=move)
                assert err["type"] == "error" and err["code"] == "internal", err
            await asyncio.to_thread(private_pg.start)
            deadline = time.monotonic() + 30
            while True:
                code, _ = await asyncio.to_thread(http_get, f"{srv.http}/healthz")
                if code == 200 or time.monotonic() > deadline:
                    break
                await asyncio.sleep(0.2)
            assert code == 200
            ok = None
            deadline = time.monotonic() + 30  # the pool drops its dead connections, reconnects
            while time.monotonic() < deadline:
                ok = await c.req(type="act", tournament=tid, seq=2, action=move)
                if ok["type"] == "state":
                    break
                await asyncio.sleep(0.2)
            assert ok is not None and ok["type"] == "state" and ok["seq"] == 2
            entry = (await srv.app.store.entries(tid))[0]
            assert [a.seq for a in await srv.app.store.actions(entry.id)] == [1, 2]
        await op.close()
