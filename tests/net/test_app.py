"""The application (server/net/app.py) in-process: HTTP on the WebSocket's port answered
by `respond_http` (methods, origins, security headers, health, metrics, bundles,
standings, the routes it hands on, a trusted proxy's client), a WebSocket's messages
answered by its session (limits per address, idle engagement, abuse), and the server's
start-up and stop."""

from __future__ import annotations

import asyncio
import dataclasses
import gc
import gzip
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from server.net import app as app_mod
from server.net.app import App
from server.net.limits import Registrations, ServeLimits
from server.net.session import Abuse
from tests.net.conftest import Conn, http_conn, request, signed_in
from tests.support.harness import create_msg

SECURE = dict(app_mod.SECURITY_HEADERS)


def secured(response: Any) -> bool:
    return all(response.headers.get(name) == value for name, value in SECURE.items())


async def test_methods_each_path_answers_and_the_rest_refused(app: App) -> None:
    conn = http_conn()
    options = await app.respond_http(conn, request("/anything", method="OPTIONS"))
    assert options is not None and options.status_code == 204 and options.body == b""
    assert options.headers["Allow"] == "GET, HEAD, OPTIONS" and secured(options)
    for method, path in (("POST", "/healthz"), ("DELETE", "/"), ("HEAD", "/ws")):
        refused = await app.respond_http(conn, request(path, method=method))
        assert refused is not None and refused.status_code == 405, (method, path)
        assert refused.headers["Allow"] == "GET, HEAD, OPTIONS" and secured(refused)
    head = await app.respond_http(conn, request("/healthz", method="HEAD"))
    got = await app.respond_http(conn, request("/healthz"))
    assert head is not None and got is not None
    assert (head.status_code, head.body, got.body) == (200, b"", b"ok\n")
    assert head.headers["Content-Length"] == got.headers["Content-Length"] == "3"


async def test_a_browsers_websocket_comes_from_the_servers_own_origins(app: App) -> None:
    own = http_conn()
    upgrade = request("/ws", Host="play.example", Origin="https://play.example")
    assert await app.respond_http(own, upgrade) is None  # upgraded
    assert own.host == "play.example"  # the passkeys' default relying party
    foreign = http_conn()
    refused = await app.respond_http(
        foreign, request("/ws", Host="play.example", Origin="https://evil.example")
    )
    assert refused is not None and refused.status_code == 403 and secured(refused)
    assert refused.body == b"origin not allowed\n" and foreign.host is None
    assert foreign.server.limit_log.hits == 1
    app.serve_limits = ServeLimits(public_origin="https://evil.example")
    assert (
        await app.respond_http(http_conn(), request("/ws", Origin="https://evil.example")) is None
    )
    assert await app.respond_http(http_conn(), request("/ws")) is None  # not a browser


async def test_health_metrics_pages_and_not_found(app: App) -> None:
    conn = http_conn()
    metrics = await app.respond_http(conn, request("/metrics"))
    assert metrics is not None and metrics.status_code == 200
    assert metrics.headers.get_all("Content-Type") == [app_mod.CONTENT_TYPE]
    assert b"samedeal_connections 0.0" in metrics.body and secured(metrics)
    page = await app.respond_http(conn, request("/t/3"))
    assert page is not None and page.status_code == 200
    assert page.headers["Content-Security-Policy"].startswith("default-src 'self'")  # its own
    missing = await app.respond_http(conn, request("/nothing"))
    assert missing is not None and (missing.status_code, missing.body) == (404, b"not found\n")
    assert secured(missing)
    schedules = await app.respond_http(conn, request("/schedules.json"))
    assert schedules is not None and json.loads(schedules.body) == {"items": []}
    board = await app.respond_http(conn, request("/leaderboard/gaps.json"))
    assert board is not None and board.status_code == 200  # handed to ratings_http
    assert json.loads(board.body)["type"] == "leaderboard" and app.ratings_http is not None


async def test_a_closed_tournaments_bundle_and_standings_as_json(app: App) -> None:
    op = await signed_in(app, "op", admin=True)
    tid = (await op.ok(**create_msg()))["tournament"]["id"]
    conn = http_conn()
    early = await app.respond_http(conn, request(f"/tournaments/{tid}/bundle.json"))
    assert early is not None and early.status_code == 404  # not revealed yet
    standings = await app.respond_http(
        conn, request(f"/tournaments/{tid}/standings.json?offset=0&limit=5")
    )
    assert standings is not None and standings.status_code == 200
    assert json.loads(standings.body)["type"] == "standings"
    assert standings.headers["Cache-Control"] == "max-age=1"
    assert standings.headers.get_all("Content-Type") == ["application/json"]
    bad = await app.respond_http(conn, request(f"/tournaments/{tid}/standings.json?limit=x"))
    assert bad is not None and bad.status_code == 400
    none = await app.respond_http(conn, request("/tournaments/99/standings.json"))
    assert none is not None and none.status_code == 404
    await op.ok(type="close_tournament", tournament=tid)
    plain = await app.respond_http(conn, request(f"/tournaments/{tid}/bundle.json"))
    zipped = await app.respond_http(
        conn, request(f"/tournaments/{tid}/bundle.json", Accept_Encoding="gzip, br")
    )
    assert plain is not None and zipped is not None
    assert json.loads(plain.body)["tournament"]["id"] == tid
    assert "Content-Encoding" not in plain.headers and zipped.headers["Content-Encoding"] == "gzip"
    assert gzip.decompress(zipped.body) == plain.body
    assert plain.headers["Vary"] == "Accept-Encoding"


async def test_a_trusted_proxys_connection_counts_under_its_client(app: App) -> None:
    conn = http_conn()
    conn.proxied, conn.counted_ip = True, None
    conn.server.counts.max_per_ip = 1
    forwarded = request("/healthz", X_Forwarded_For="1.2.3.4, 5.6.7.8")
    answered = await app.respond_http(conn, forwarded)
    assert answered is not None and answered.status_code == 200
    assert (conn.ip, conn.counted_ip, conn.server.counts.by_ip) == (
        "5.6.7.8",
        "5.6.7.8",
        {"5.6.7.8": 1},
    )
    second = http_conn()
    second.server = conn.server
    second.proxied, second.counted_ip = True, None
    refused = await app.respond_http(second, forwarded)
    assert refused is not None and refused.status_code == 503
    assert refused.body == app_mod.TOO_MANY_TEXT.encode() and secured(refused)


async def test_a_websockets_messages_are_answered_by_its_session(app: App) -> None:
    conn = Conn()
    handle = app.opened(conn)  # type: ignore[arg-type]
    assert app.metrics.connections == 1
    await handle('{"type": "ping", "id": 1}')
    assert conn.sent[-1]["type"] == "pong" and not conn.engaged
    await handle('{"type": "register", "name": "ana"}')
    assert conn.sent[-1]["type"] == "registered" and conn.engaged  # no idle timeout now
    watcher = Conn()
    watch = app.opened(watcher)  # type: ignore[arg-type]
    op = await signed_in(app, "op", admin=True)
    tid = (await op.ok(**create_msg()))["tournament"]["id"]
    await watch(json.dumps({"type": "subscribe", "tournament": tid}))
    assert watcher.engaged  # watching: no idle timeout either
    app.closed(conn)  # type: ignore[arg-type]
    app.closed(watcher)  # type: ignore[arg-type]
    assert app.metrics.connections == 0
    assert not app.fanout.watching(tid, watcher)


async def test_registrations_and_sign_ins_are_limited_per_address(app: App) -> None:
    app.registrations = Registrations(1)
    app.sign_ins = Registrations(1)
    conn = Conn()
    handle = app.opened(conn)  # type: ignore[arg-type]
    await handle('{"type": "register", "name": "ana"}')
    await handle('{"type": "register", "name": "bo"}')
    assert conn.sent[-1]["reason"] == "too_many_registrations"
    for _ in range(2):
        await handle('{"type": "passkey_login", "credential": {"id": "x"}}')
    assert conn.sent[-1]["code"] == "rate_limited"
    assert conn.limits_hit == ["max_registrations_per_minute", "max_sign_ins_per_minute"]
    other = Conn(ip="10.0.0.2")
    await app.opened(other)('{"type": "register", "name": "cy"}')  # type: ignore[arg-type]
    assert other.sent[-1]["type"] == "registered"


async def test_sustained_abuse_closes_and_a_waiting_stop_is_told_when_all_are_answered(
    app: App, monkeypatch: pytest.MonkeyPatch
) -> None:
    conn = Conn()
    handle = app.opened(conn)  # type: ignore[arg-type]

    async def abused(_self: Any, _frame: Any) -> dict[str, Any]:
        raise Abuse()

    app.drained = asyncio.get_running_loop().create_future()
    with monkeypatch.context() as patched:
        patched.setattr(app_mod.Session, "handle", abused)
        await handle("{}")
    assert conn.closed == (1008, "rate limit abused") and conn.sent == []
    assert app.inflight == 0 and app.drained.done()


async def test_the_relying_party_is_the_public_origin_else_the_requests_host(app: App) -> None:
    conn = http_conn()
    conn.host = "play.example:8443"
    assert app._relying_party(conn).id == "play.example"  # type: ignore[union-attr]
    app.serve_limits = ServeLimits(public_origin="https://cards.example")
    rp = app._relying_party(conn)
    assert rp is not None and (rp.id, rp.origins) == ("cards.example", ("https://cards.example",))


def test_the_transports_limits_come_from_the_serve_limits() -> None:
    chosen = ServeLimits(max_connections=10**9, max_connections_per_ip=3, idle_timeout=7.0)
    limits = app_mod.transport_limits(chosen)
    assert limits.max_connections < 10**9  # capped by the open-files limit
    assert (limits.max_connections_per_ip, limits.idle_timeout) == (3, 7.0)
    assert dataclasses.replace(limits, max_connections=0, max_connections_per_ip=0) == (
        dataclasses.replace(app_mod.LIMITS, idle_timeout=7.0)
    )


def test_gc_is_tuned_and_the_loop_runs_a_coroutine() -> None:
    before = gc.get_threshold()
    try:
        app_mod.tune_gc()
        assert gc.get_threshold() == app_mod.GC_THRESHOLDS and gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)

    async def answer() -> int:
        await asyncio.sleep(0)
        return 42

    assert app_mod.run_loop(answer()) == 42


def test_the_store_is_waited_for_while_the_database_is_away(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    tries: list[str] = []
    waits: list[float] = []

    async def opened(url: str) -> str:
        tries.append(url)
        if len(tries) < 3:
            raise OSError("could not connect to server")
        return "store"

    async def no_wait(seconds: float) -> None:
        waits.append(seconds)

    monkeypatch.setattr(app_mod.Store, "open", opened)
    monkeypatch.setattr(app_mod.asyncio, "sleep", no_wait)
    assert asyncio.run(app_mod.open_store("db", attempts=5)) == "store"
    assert len(tries) == 3 and waits == [1, 1]
    tries.clear()
    with pytest.raises(OSError):
        asyncio.run(app_mod.open_store("db", attempts=2))  # given up after its attempts

    async def broken(url: str) -> str:
        raise ValueError("a bad URL")

    monkeypatch.setattr(app_mod.Store, "open", broken)
    waits.clear()
    with pytest.raises(ValueError):
        asyncio.run(app_mod.open_store("db"))
    assert waits == []  # not the database away: at once


async def test_run_serves_until_told_to_stop(
    migrated: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    copy = shutil.copy(migrated, tmp_path / "run.db")
    monkeypatch.setattr(app_mod, "tune_gc", lambda: None)  # the test process's GC stays
    ports: list[int] = []
    stop = asyncio.get_running_loop().create_future()

    def ready(port: int) -> None:
        ports.append(port)
        stop.set_result(None)

    await app_mod.run("127.0.0.1", 0, f"sqlite+aiosqlite:///{copy}", ready=ready, stop=stop)
    assert len(ports) == 1 and ports[0] > 0
