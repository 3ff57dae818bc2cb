"""The transport under hostile peers (issue 23): ping floods, fragment floods, connection
floods and idle connections, each bounded in count on loopback. Times are driven: every
wait is for a condition, with a deadline, never a sleep hoping it happened."""

from __future__ import annotations

import asyncio
import logging

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed
from websockets.frames import Opcode
from websockets.http11 import Request, Response

from server.net.connection import WsConnection
from server.net.transport import ConnectionLimits, WsServer
from tests.net.test_transport import (
    Endpoint,
    client_frame,
    close_code_of,
    port_of,
    raw_client,
    serving,
    until,
)


async def frames_until_close(reader: asyncio.StreamReader) -> tuple[int, int]:
    """Read server frames to its close frame: (pongs seen, the close code)."""
    pongs = 0
    while True:
        head = await asyncio.wait_for(reader.readexactly(2), 5)
        length = head[1] & 0x7F
        if length == 126:
            length = int.from_bytes(await reader.readexactly(2), "big")
        elif length == 127:
            length = int.from_bytes(await reader.readexactly(8), "big")
        payload = await reader.readexactly(length)
        opcode = head[0] & 0x0F
        if opcode == Opcode.PONG.value:
            pongs += 1
        elif opcode == Opcode.CLOSE.value:
            return pongs, int.from_bytes(payload[:2], "big")


# -- 1. ping floods ---------------------------------------------------------------
async def test_a_ping_flood_past_the_rate_gets_no_pongs_and_is_closed_with_1008() -> None:
    limits = ConnectionLimits(ping_interval=60, rate=10, burst=20, abuse_strikes=50)
    async with serving(limits) as (_server, _, url):
        reader, writer = await raw_client(url)
        writer.write(b"".join(client_frame(Opcode.PING, b"p") for _ in range(200)))
        pongs, code = await frames_until_close(reader)
        writer.close()
    assert code == 1008
    assert 20 <= pongs <= 30  # the burst, and what the rate refilled meanwhile


async def test_a_peer_that_pings_and_never_reads_stops_being_read() -> None:
    """The pongs pile up only to the write limit: past it nothing more is read."""
    limits = ConnectionLimits(ping_interval=60, write_limit=4096, rate=1e9, burst=1e9)
    async with serving(limits) as (server, _endpoint, url):
        _reader, writer = await raw_client(url)
        conn = next(iter(server.connections))
        ping = client_frame(Opcode.PING, b"x" * 125)
        for _ in range(200):  # up to 200 x 2,000 pings of 125 bytes (the kernel's
            writer.write(ping * 2000)  # buffers on loopback take megabytes first)
            if conn.not_reading:
                break
            await asyncio.sleep(0.002)
        await until(lambda: conn.not_reading)
        assert conn.transport.get_write_buffer_size() <= limits.write_limit + 131 * 2000
        held = conn.transport.get_write_buffer_size()
        assert not conn.transport.is_reading()  # so what it sends now is never read
        writer.write(ping * 2000)  # more while it is not read: nothing more is written
        for _ in range(20):  # turns of the loop (no timed wait): the pings stay unread
            await asyncio.sleep(0)
        assert conn.transport.get_write_buffer_size() == held
        writer.transport.abort()


# -- 3. fragments -----------------------------------------------------------------
async def test_a_message_in_many_fragments_arrives_whole_within_the_cap() -> None:
    async with (
        serving(ConnectionLimits(max_fragments=64)) as (_, _endpoint, url),
        connect(url) as ws,
    ):
        await ws.send([f"{i:02d}" for i in range(63)])  # 63 frames and an empty last one
        assert await ws.recv() == "".join(f"{i:02d}" for i in range(63))


@pytest.mark.parametrize("payload", [b"ab", b""])
async def test_a_message_in_more_fragments_than_the_cap_closes_with_1009(payload: bytes) -> None:
    """Two-byte fragments of a small message, or endless empty continuations."""
    async with serving(ConnectionLimits(max_fragments=64, ping_interval=60)) as (
        server,
        endpoint,
        url,
    ):
        reader, writer = await raw_client(url)
        conn = next(iter(server.connections))
        writer.write(client_frame(Opcode.TEXT, payload, fin=False))
        writer.write(b"".join(client_frame(Opcode.CONT, payload, fin=False) for _ in range(5000)))
        assert await close_code_of(reader) == 1009
        assert len(conn.fragments) <= 64 * len(payload)  # one buffer, dropped at the close
        writer.close()
    assert endpoint.handled == []


async def test_continuation_frames_spend_the_rate() -> None:
    limits = ConnectionLimits(
        ping_interval=60, rate=10, burst=20, abuse_strikes=30, max_fragments=10_000
    )
    async with serving(limits) as (_, _endpoint, url):
        reader, writer = await raw_client(url)
        writer.write(client_frame(Opcode.TEXT, b"a", fin=False))
        writer.write(b"".join(client_frame(Opcode.CONT, b"a", fin=False) for _ in range(200)))
        assert await close_code_of(reader) == 1008
        writer.close()


# -- 4. connections ---------------------------------------------------------------
async def http_status(port: int) -> bytes:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"GET /nothing HTTP/1.1\r\nHost: x\r\n\r\n")
    head = await asyncio.wait_for(reader.read(12), 5)
    writer.close()
    return head


async def test_connections_per_address_are_capped_and_the_hit_is_logged_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    limits = ConnectionLimits(ping_interval=60, max_connections_per_ip=3)
    caplog.set_level(logging.WARNING, "samedeal.limits")
    async with serving(limits) as (server, _, url):
        held = [await raw_client(url) for _ in range(3)]
        refused = [await http_status(port_of(url)) for _ in range(20)]
        assert refused == [b"HTTP/1.1 503"] * 20
        assert server.counts.total == 3
        held[0][1].close()
        await until(lambda: server.counts.total == 2)
        assert await http_status(port_of(url)) == b"HTTP/1.1 404"  # one place free again
        for _, writer in held[1:]:
            writer.close()
    lines = [r.getMessage() for r in caplog.records if "limit_hit" in r.getMessage()]
    assert len(lines) == 1 and "limit=max_connections_per_ip ip=127.0.0.1" in lines[0]
    assert server.limit_log.hits == 20


async def test_connections_in_all_are_capped() -> None:
    async with serving(ConnectionLimits(ping_interval=60, max_connections=2)) as (server, _, url):
        held = [await raw_client(url) for _ in range(2)]
        assert await http_status(port_of(url)) == b"HTTP/1.1 503"
        for _, writer in held:
            writer.close()
        await until(lambda: server.counts.total == 0)
        assert await http_status(port_of(url)) == b"HTTP/1.1 404"


async def test_a_connection_neither_authenticated_nor_watching_closes_when_idle() -> None:
    limits = ConnectionLimits(ping_interval=60, idle_timeout=0.2)
    async with (
        serving(limits) as (_, endpoint, url),
        connect(url) as idle,
        connect(url) as engaged,
    ):
        await engaged.send("hello")
        assert await engaged.recv() == "hello"
        endpoint.conns[-1].engaged = True  # as the app marks an authenticated one
        with pytest.raises(ConnectionClosed) as info:
            await asyncio.wait_for(idle.recv(), 5)
        assert info.value.rcvd is not None and info.value.rcvd.code == 1008
        await engaged.send("still here")
        assert await engaged.recv() == "still here"


async def test_a_handshake_never_sent_is_dropped_and_frees_its_place() -> None:
    limits = ConnectionLimits(ping_interval=60, open_timeout=0.2, max_connections_per_ip=1)
    async with serving(limits) as (server, _, url):
        reader, writer = await asyncio.open_connection("127.0.0.1", port_of(url))
        assert await asyncio.wait_for(reader.read(), 5) == b""  # dropped at the deadline
        await until(lambda: server.counts.total == 0)
        writer.close()


# -- the open deadline ----------------------------------------------------------
async def test_the_open_deadline_ends_when_the_request_is_in() -> None:
    """A response the server takes longer than the open deadline to make (a large
    bundle's first build) is still sent; a request never finished is still dropped."""

    class Slow(Endpoint):
        async def respond_http(self, conn: WsConnection, request: Request) -> Response | None:
            await asyncio.sleep(0.5)
            return conn.respond(200, "made slowly\n")

    server = WsServer(Slow(), ConnectionLimits(ping_interval=60, open_timeout=0.2))
    port = await server.listen("127.0.0.1", 0)
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
        answer = await asyncio.wait_for(reader.read(), 5)
        assert answer.startswith(b"HTTP/1.1 200") and answer.endswith(b"made slowly\n")
        writer.close()
    finally:
        await server.close()
