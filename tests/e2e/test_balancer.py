"""deploy/nginx.conf under a real nginx in front of two real server processes on one
PostgreSQL database: WebSocket sessions and HTTP pass through it, connections are spread
over both servers, and a dead server is passed over.

nginx runs as a subprocess on a copy of deploy/nginx.conf whose listening port and
upstream servers point at this machine's loopback. Without nginx the test skips, except
under CI=true, where it fails (CI installs Debian's nginx).
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import signal
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from websockets.asyncio.client import connect

from tests.support.harness import Client
from tests.support.processes import Killable, cli, free_port

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "deploy" / "nginx.conf"


def nginx_binary() -> str:
    """The nginx program; skipped without one, a failure under CI=true."""
    found = shutil.which("nginx") or shutil.which("nginx", path="/usr/sbin:/usr/local/sbin")
    if found:
        return found
    if os.environ.get("CI") == "true":
        pytest.fail("nginx is required under CI=true (apt-get install -y nginx)")
    pytest.skip("nginx not installed (this test runs under CI=true)")


def local_config(port: int, upstreams: list[int], work: Path) -> str:
    """deploy/nginx.conf with its port and upstream servers on loopback, and its temporary
    files in `work`; fails if the lines it replaces are no longer there."""
    text = CONFIG.read_text(encoding="utf-8")
    replacements = [("listen 8765;", f"listen 127.0.0.1:{port};")]
    replacements += [
        (f"server server{i + 1}:8765 ", f"server 127.0.0.1:{p} ") for i, p in enumerate(upstreams)
    ]
    for old, new in replacements:  # directives, not the comments that name them
        text, n = re.subn(rf"^(\s*){re.escape(old)}", rf"\g<1>{new}", text, flags=re.M)
        assert n == 1, f"deploy/nginx.conf should have the line {old!r} once"
    temp = "".join(
        f"    {kind}_temp_path {work / kind};\n"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    text, n = re.subn(r"^http \{\n", "http {\n" + temp, text, flags=re.M)
    assert n == 1
    return text


class Nginx:
    def __init__(self, binary: str, config: str, work: Path) -> None:
        self.work = work
        conf = work / "nginx.conf"
        conf.write_text(config, encoding="utf-8")
        globals_ = f"daemon off; pid {work / 'nginx.pid'};"
        if os.geteuid() == 0:
            globals_ += " user root;"  # workers may then use the test's temporary folder
        self.error_log = work / "error.log"
        args = ["-c", str(conf), "-p", str(work), "-e", str(self.error_log), "-g", globals_]
        check = subprocess.run([binary, "-t", *args], capture_output=True, text=True)
        assert check.returncode == 0, check.stderr
        self.proc = subprocess.Popen(
            [binary, *args],
            stdout=subprocess.DEVNULL,
            stderr=(work / "nginx.stderr").open("w"),
        )

    def log(self) -> str:
        return "".join(
            p.read_text(errors="replace") for p in (self.error_log, self.work / "nginx.stderr")
        )[-3000:]

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGQUIT)  # graceful: workers finish and exit
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def connections(server: Killable) -> int:
    """samedeal_connections read from the server itself (not through nginx)."""
    _, text = get(f"http://127.0.0.1:{server.port}/metrics")
    found = re.search(r"^samedeal_connections (\d+)", text, re.M)
    assert found, text
    return int(found.group(1))


@pytest.fixture
def cluster(pg_url: str, tmp_path: Path) -> Iterator[tuple[str, list[Killable]]]:
    """Two servers on one PostgreSQL database behind nginx: (nginx's address, servers)."""
    binary = nginx_binary()
    servers = [Killable(pg_url, free_port(), tmp_path / f"server{i}.log") for i in (1, 2)]
    nginx: Nginx | None = None
    try:
        for s in servers:
            s.start()
        port = free_port()
        nginx = Nginx(binary, local_config(port, [s.port for s in servers], tmp_path), tmp_path)
        base = f"127.0.0.1:{port}"
        deadline = time.monotonic() + 15
        while True:
            assert nginx.proc.poll() is None, nginx.log()
            try:
                if get(f"http://{base}/healthz")[0] == 200:
                    break
            except OSError:
                pass
            assert time.monotonic() < deadline, nginx.log()
            time.sleep(0.05)
        yield base, servers
    finally:
        if nginx is not None:
            nginx.stop()
        for s in servers:
            s.stop()


async def test_websocket_sessions_and_http_through_nginx(
    cluster: tuple[str, list[Killable]], pg_url: str
) -> None:
    base, servers = cluster
    made = cli(pg_url, "tournament", "create", "--json", "--name", "Behind nginx", "--hours", "2")
    assert made.returncode == 0, made.stderr

    status, body = get(f"http://{base}/healthz")
    assert (status, body) == (200, "ok\n")
    status, body = get(f"http://{base}/")  # a page of the browser client, through nginx
    assert status == 200 and "<html" in body.lower()

    # One WebSocket session through nginx: register, tournaments, ping.
    async with connect(f"ws://{base}/ws") as ws1:
        first = Client(ws1, [])
        registered = await first.ok(type="register", name="balanced")
        items = (await first.ok(type="tournaments"))["items"]
        assert [t["name"] for t in items] == ["Behind nginx"]
        assert (await first.ok(type="ping"))["type"] == "pong"

        # A second connection lands on the other server (one round robin for all of
        # nginx's workers) and knows the same player: both serve the one database.
        async with connect(f"ws://{base}/ws") as ws2:
            second = Client(ws2, [])
            authed = await second.ok(type="auth", token=registered["token"])
            assert authed["player"]["name"] == "balanced"
            tid = items[0]["id"]
            state = await second.ok(type="join", tournament=tid)
            move = {"kind": "move", **state["view"]["legal"][0]}
            state = await second.ok(type="act", tournament=tid, seq=1, action=move)
            assert state["seq"] == 1
            assert sorted(connections(s) for s in servers) == [1, 1]
            # the first connection, on the other server, reads the move from the database
            assert (await first.ok(type="state", tournament=tid))["seq"] == 1

        # the first session goes on after the second one closed
        assert (await first.ok(type="ping"))["type"] == "pong"

    # One server dies: nginx passes it over, for HTTP and for new WebSocket sessions.
    await asyncio.to_thread(servers[0].kill)
    for _ in range(6):
        assert get(f"http://{base}/healthz") == (200, "ok\n")
    for i in range(3):
        async with connect(f"ws://{base}/ws") as ws:
            c = Client(ws, [])
            await c.ok(type="register", name=f"after-{i}")
            assert (await c.ok(type="ping"))["type"] == "pong"
    assert connections(servers[1]) == 0


async def test_nginx_keeps_the_per_address_limits(cluster: tuple[str, list[Killable]]) -> None:
    """New WebSockets and other requests per address are rate-limited at the edge
    (deploy/nginx.conf: bursts of 30 and 50), with 429; /healthz is not."""
    from websockets.exceptions import InvalidStatus

    base, _ = cluster
    opened, refused = [], 0
    started = time.monotonic()
    try:
        for _ in range(40):  # bounded: past the burst of 30 (and its refill meanwhile)
            try:
                opened.append(await connect(f"ws://{base}/ws"))
            except InvalidStatus as exc:
                assert exc.response.status_code == 429
                refused += 1
        refill = int(time.monotonic() - started) + 1  # one a second (60 a minute)
        assert 30 <= len(opened) <= 31 + refill and refused == 40 - len(opened)
        assert refused > 0
    finally:
        for ws in opened:
            await ws.close()
    started = time.monotonic()
    statuses = [get(f"http://{base}/tournaments/1/standings.json")[0] for _ in range(70)]
    refill = 10 * (int(time.monotonic() - started) + 1)  # ten a second
    assert 429 not in statuses[:50] and statuses.count(429) >= min(1, 20 - refill)
    assert all(get(f"http://{base}/healthz")[0] == 200 for _ in range(20))
