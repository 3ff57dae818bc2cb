"""The server's HTTP and account limits as an attacker meets them (issue 23): methods,
headers, browsers' origins, registrations per address, and bundles built once."""

from __future__ import annotations

import asyncio
import gzip
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import orjson
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from server.audit.verify import verify_document
from server.net.app import LIMITS, build_app, shutdown, transport_limits
from server.net.limits import ServeLimits
from server.net.transport import WsServer
from tests.support.harness import Client, Clock, Running, create_msg


@asynccontextmanager
async def serving(url: str, limits: ServeLimits) -> AsyncIterator[Running]:
    app = await build_app(url, Clock(), demo=False, serve_limits=limits)
    server = WsServer(app, transport_limits(limits))
    port = await server.listen("127.0.0.1", 0)
    ticker = asyncio.get_running_loop().create_task(asyncio.sleep(0))
    try:
        yield Running(app, port, Clock())
    finally:
        await shutdown(server, app, ticker)


async def request(port: int, head: str) -> tuple[str, dict[str, list[str]], bytes]:
    """One raw HTTP request: (status line, headers by lowercase name, body)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(head.encode() + b"\r\n\r\n")
    raw = await asyncio.wait_for(reader.read(), 10)
    writer.close()
    top, _, body = raw.partition(b"\r\n\r\n")
    status, *lines = top.decode().split("\r\n")
    headers: dict[str, list[str]] = {}
    for line in lines:
        name, _, value = line.partition(":")
        headers.setdefault(name.strip().lower(), []).append(value.strip())
    return status, headers, body


NONE = ServeLimits.none()


async def test_head_options_and_other_methods_are_answered_as_http_says(sqlite_url: str) -> None:
    async with serving(sqlite_url, NONE) as srv:
        status, get_headers, body = await request(srv.port, "GET / HTTP/1.1\r\nHost: x")
        assert status == "HTTP/1.1 200 OK" and body
        status, headers, body = await request(srv.port, "HEAD / HTTP/1.1\r\nHost: x")
        assert status == "HTTP/1.1 200 OK" and body == b""
        assert headers["content-length"] == get_headers["content-length"]
        status, headers, body = await request(srv.port, "OPTIONS /healthz HTTP/1.1\r\nHost: x")
        assert status.startswith("HTTP/1.1 204") and headers["allow"] == ["GET, HEAD, OPTIONS"]
        for method in ("TRACE", "POST", "PUT", "DELETE", "CONNECT", "PATCH"):
            status, headers, body = await request(srv.port, f"{method} / HTTP/1.1\r\nHost: x")
            assert status.startswith("HTTP/1.1 405"), method
            assert headers["allow"] == ["GET, HEAD, OPTIONS"] and b"<html" not in body


async def test_json_and_error_answers_carry_one_content_type_and_security_headers(
    sqlite_url: str,
) -> None:
    async with serving(sqlite_url, NONE) as srv:
        for path in ("/tournaments/1/standings.json", "/nothing", "/tournaments/9/bundle.json"):
            _, headers, _ = await request(srv.port, f"GET {path} HTTP/1.1\r\nHost: x")
            assert len(headers["content-type"]) == 1, path
            assert headers["x-content-type-options"] == ["nosniff"], path
            assert "frame-ancestors 'none'" in headers["content-security-policy"][0], path
            assert headers["referrer-policy"] == ["no-referrer"], path


async def test_a_browser_page_of_another_origin_cannot_open_the_websocket(sqlite_url: str) -> None:
    limits = ServeLimits(0, 0, 0, 0.0, frozenset({"https://friend.example"}))
    async with serving(sqlite_url, limits) as srv:
        with pytest.raises(InvalidStatus) as info:
            await connect(srv.ws_url, origin="https://evil.example")  # type: ignore[arg-type]
        assert info.value.response.status_code == 403
        own = f"http://127.0.0.1:{srv.port}"
        for origin in (own, "https://friend.example", None):
            async with connect(srv.ws_url, origin=origin) as ws:  # type: ignore[arg-type]
                c = Client(ws, srv.frames)
                assert (await c.ok(type="ping"))["type"] == "pong"


async def test_registrations_per_address_are_limited_and_a_refused_one_changes_nothing(
    sqlite_url: str,
) -> None:
    limits = ServeLimits(0, 0, 3, 0.0)
    async with serving(sqlite_url, limits) as srv:
        for i in range(3):
            async with srv.client() as c:
                await c.ok(type="register", name=f"p{i}")
        async with srv.client() as c:
            refused = await c.req(type="register", name="p3")
            assert refused["code"] == "rate_limited" and "registrations" in refused["message"]
            assert (await c.ok(type="ping"))["type"] == "pong"  # the connection stays
        assert await srv.app.store.player_by_name("p3") is None
        assert await srv.app.store.player_by_name("p2") is not None


async def closed_tournament(srv: Running, players: int) -> int:
    op = await srv.admin()
    tid = int((await op.ok(**create_msg()))["tournament"]["id"])
    for i in range(players):
        async with srv.client() as c:
            await c.ok(type="register", name=f"p{i}")
            st = await c.ok(type="join", tournament=tid)
            move = st["view"]["legal"][0]
            await c.ok(type="act", tournament=tid, seq=1, action={"kind": "move", **move})
    await op.ok(type="close_tournament", tournament=tid)
    return tid


async def test_a_bundle_is_built_once_shared_by_concurrent_requests_and_gzipped(
    sqlite_url: str, tmp_path: Path
) -> None:
    async with serving(sqlite_url, NONE) as srv:
        tid = await closed_tournament(srv, 5)
        path = f"/tournaments/{tid}/bundle.json"
        answers = await asyncio.gather(
            *[request(srv.port, f"GET {path} HTTP/1.1\r\nHost: x") for _ in range(5)],
            *[
                request(srv.port, f"GET {path} HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip")
                for _ in range(5)
            ],
        )
        plain, zipped = answers[0], answers[5]
        assert all(a == plain for a in answers[:5]) and all(a == zipped for a in answers[5:])
        bundles = srv.app.competition.bundles
        assert bundles is not None and bundles.builds == 1
        assert plain[0] == "HTTP/1.1 200 OK" and plain[1]["content-type"] == ["application/json"]
        assert zipped[1]["content-encoding"] == ["gzip"]
        assert gzip.decompress(zipped[2]) == plain[2]
        # the same bytes as the bundle the exports build, and it verifies
        assert plain[2] == orjson.dumps(await srv.app.competition.exports.bundle(tid))
        assert verify_document(json.loads(plain[2])).ok
        bundles.invalidate(tid)  # par or an amendment added: the next request rebuilds
        again = await request(srv.port, f"GET {path} HTTP/1.1\r\nHost: x")
        assert bundles.builds == 2 and again[2] == plain[2]


async def test_a_large_bundle_is_sent_whole_to_a_slow_reader(sqlite_url: str) -> None:
    """Bodies past one chunk are written as the client reads (no copy per request)."""
    async with serving(sqlite_url, NONE) as srv:
        tid = await closed_tournament(srv, 1)
        bundles = srv.app.competition.bundles
        assert bundles is not None
        built = await bundles.get(tid)
        # a body of 3 MB: the same cache entry, made larger
        big = type(built)(built.plain + b" " * 3_000_000, built.gzip)
        bundles._cache[tid] = big
        reader, writer = await asyncio.open_connection("127.0.0.1", srv.port)
        writer.write(f"GET /tournaments/{tid}/bundle.json HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        received = b""
        while chunk := await asyncio.wait_for(reader.read(65536), 10):
            received += chunk
            await asyncio.sleep(0)
        writer.close()
        assert (
            received.endswith(big.plain)
            and b"Content-Length: " + str(len(big.plain)).encode() in received
        )


def test_the_default_transport_limits_stay_unlimited_for_in_process_servers() -> None:
    assert LIMITS.max_connections == 0 and LIMITS.max_connections_per_ip == 0
    chosen = transport_limits(ServeLimits())
    assert chosen.max_connections_per_ip == 64 and chosen.idle_timeout == 60.0
    assert 0 < chosen.max_connections <= 10_000


async def test_serve_applies_its_limit_flags_and_logs_each_hit_once(tmp_path: Path) -> None:
    """The real `serve` with its flags: connections and registrations per address
    capped, one warning per limit and address, no line per connection by default;
    RLIMIT_NOFILE raised to its hard limit."""
    import resource

    from tests.support.processes import ServerProcess

    log = tmp_path / "server.log"
    url = f"sqlite+aiosqlite:///{tmp_path / 'limits.db'}"
    proc = ServerProcess(
        url,
        log,
        ("--no-demo", "--max-connections-per-ip", "3", "--max-registrations-per-minute", "2"),
    )
    try:
        ws_url = f"ws://127.0.0.1:{proc.port}/ws"
        async with connect(ws_url) as a, connect(ws_url) as b:
            for ws, name in ((a, "one"), (b, "two")):
                c = Client(ws, [])
                await c.ok(type="register", name=name)
            async with connect(ws_url) as third:
                refused = await Client(third, []).req(type="register", name="three")
                assert refused["code"] == "rate_limited"
                for _ in range(5):  # a fourth connection from this address
                    status, _, body = await request(proc.port, "GET /healthz HTTP/1.1\r\nHost: x")
                    assert status.startswith("HTTP/1.1 503") and body == b"too many connections\n"
        with open(f"/proc/{proc.proc.pid}/limits") as f:
            line = next(x for x in f if x.startswith("Max open files"))
        soft, hard = line.split()[3:5]
        assert soft == hard or hard == "unlimited"
        assert int(soft) >= resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    finally:
        assert proc.stop() == 0
    text = log.read_text()
    assert text.count("limit=max_connections_per_ip") == 1, text
    assert text.count("limit=max_registrations_per_minute") == 1, text
    assert "connection open" not in text and "connection closed" not in text, text


async def test_behind_a_trusted_proxy_limits_count_the_forwarded_client(sqlite_url: str) -> None:
    limits = ServeLimits(0, 1, 1, 0.0, trusted_proxies=("127.0.0.0/8",))
    async with serving(sqlite_url, limits) as srv:

        def via(client: str) -> dict[str, str]:
            return {"X-Forwarded-For": f"6.6.6.6, {client}"}  # the first is the client's word

        async with (
            connect(srv.ws_url, additional_headers=via("10.0.0.1")) as a,
            connect(srv.ws_url, additional_headers=via("10.0.0.2")) as b,
        ):
            await Client(a, []).ok(type="register", name="a1")
            await Client(b, []).ok(type="register", name="b1")
            with pytest.raises(InvalidStatus) as info:
                await connect(srv.ws_url, additional_headers=via("10.0.0.1"))
            assert info.value.response.status_code == 503
        async with connect(srv.ws_url, additional_headers=via("10.0.0.1")) as again:
            refused = await Client(again, []).req(type="register", name="a2")
            assert refused["code"] == "rate_limited"
