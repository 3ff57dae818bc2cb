"""The WebSocket transport alone (server/net/transport.py), with a small test endpoint."""

from __future__ import annotations

import asyncio
import functools
import struct
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed
from websockets.frames import Frame, Opcode
from websockets.http11 import Request, Response

from server.net.connection import MessageHandler, WsConnection
from server.net.transport import ConnectionLimits, WsServer, broadcast

# FAST: keepalive pings every 0.2 s and a 0.3 s open deadline, for the tests of those two;
# QUIET, every other test's: no ping and an open deadline a loaded machine cannot miss.
FAST = ConnectionLimits(ping_interval=0.2, open_timeout=0.3, close_timeout=0.5, max_queue=4)
QUIET = ConnectionLimits(ping_interval=60, open_timeout=10, close_timeout=0.5, max_queue=4)


class Endpoint:
    """Echoes each message (text as text, binary as its length); `gate` can hold handling."""

    def __init__(self) -> None:
        self.handled: list[str | bytes] = []
        self.finished: list[str | bytes] = []
        self.closed_conns: list[WsConnection] = []
        self.conns: list[WsConnection] = []
        self.gate = asyncio.Event()
        self.gate.set()
        self.reply_size = 0

    async def respond_http(self, conn: WsConnection, request: Request) -> Response | None:
        return None if request.path == "/ws" else conn.respond(404, "not found\n")

    def opened(self, conn: WsConnection) -> MessageHandler:
        self.conns.append(conn)
        return functools.partial(self.on_message, conn)

    def closed(self, conn: WsConnection) -> None:
        self.closed_conns.append(conn)

    async def on_message(self, conn: WsConnection, message: str | bytes) -> None:
        self.handled.append(message)
        if message == "boom":
            raise RuntimeError("handler bug")
        await self.gate.wait()
        self.finished.append(message)
        body = message if isinstance(message, str) else str(len(message))
        conn.send_text((body + " " * self.reply_size).encode("utf-8", "replace"))


@asynccontextmanager
async def serving(
    limits: ConnectionLimits = QUIET,
) -> AsyncIterator[tuple[WsServer, Endpoint, str]]:
    endpoint = Endpoint()
    server = WsServer(endpoint, limits)
    port = await server.listen("127.0.0.1", 0)
    try:
        yield server, endpoint, f"ws://127.0.0.1:{port}/ws"
    finally:
        await server.close()


async def until(condition: Callable[[], bool], seconds: float = 10.0) -> None:
    """Wait for `condition`, checking every few milliseconds; fail after `seconds`
    (generous: what it waits for comes in milliseconds on an idle machine)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while not condition():
        assert loop.time() < deadline, "condition not reached in time"
        await asyncio.sleep(0.005)


HANDSHAKE = (
    "GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
)


async def raw_client(url: str) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A bare TCP client past the opening handshake: it answers nothing by itself."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port_of(url))
    writer.write(HANDSHAKE.encode())
    head = await reader.readuntil(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 101"), head
    return reader, writer


def client_frame(opcode: Opcode, data: bytes, fin: bool = True) -> bytes:
    return Frame(opcode, data, fin).serialize(mask=True, extensions=[])


def send_numbered(writer: asyncio.StreamWriter, numbers: range) -> None:
    """One text frame per number, holding its decimal text."""
    for i in numbers:
        writer.write(client_frame(Opcode.TEXT, str(i).encode()))


def port_of(url: str) -> int:
    return int(url.rsplit(":", 1)[1].split("/")[0])


async def close_code_of(reader: asyncio.StreamReader) -> int:
    """Read server frames until its close frame; its code."""
    while True:
        head = await asyncio.wait_for(reader.readexactly(2), 5)
        length = head[1] & 0x7F
        if length == 126:
            (length,) = struct.unpack("!H", await reader.readexactly(2))
        elif length == 127:
            (length,) = struct.unpack("!Q", await reader.readexactly(8))
        payload = await reader.readexactly(length)
        if head[0] & 0x0F == Opcode.CLOSE.value:
            return int(struct.unpack("!H", payload[:2])[0])


async def test_messages_in_order_text_and_binary() -> None:
    async with serving() as (_, endpoint, url), connect(url) as ws:
        await ws.send("one")
        await ws.send(b"\x00\x01\x02")
        await ws.send(["fr", "ag", "ments"])  # one message in three frames
        assert [await ws.recv() for _ in range(3)] == ["one", "3", "fragments"]
    assert endpoint.handled == ["one", b"\x00\x01\x02", "fragments"]


async def test_text_that_is_not_utf8_is_handed_over_and_the_connection_stays() -> None:
    async with serving() as (_, endpoint, url), connect(url) as ws:
        await ws.send(b"a\xff", text=True)
        assert await ws.recv() == "a?"
        await ws.send("still open")
        assert await ws.recv() == "still open"
    assert endpoint.handled == ["a\udcff", "still open"]


async def test_oversized_message_closes_with_1009() -> None:
    async with serving(ConnectionLimits(max_size=1000)) as (_, endpoint, url), connect(url) as ws:
        await ws.send("x" * 1001)
        with pytest.raises(ConnectionClosed) as info:
            await ws.recv()
        assert info.value.rcvd is not None and info.value.rcvd.code == 1009
    assert endpoint.handled == []


async def test_unanswered_pings_close_with_1011_answered_ones_do_not() -> None:
    async with serving(FAST) as (_, endpoint, url), connect(url) as polite:
        reader, writer = await raw_client(url)  # never answers a ping
        assert await close_code_of(reader) == 1011
        writer.close()
        await polite.send("still here")  # five ping rounds later, the answering client stays
        assert await polite.recv() == "still here"
        assert len(endpoint.closed_conns) == 1


async def test_silent_tcp_connection_is_dropped_after_the_open_timeout() -> None:
    async with serving(FAST) as (server, _, url):
        reader, writer = await asyncio.open_connection("127.0.0.1", port_of(url))
        assert await asyncio.wait_for(reader.read(), 5) == b""  # EOF: the server hung up
        writer.close()
        assert not server.connections


async def test_plain_http_gets_an_answer() -> None:
    async with serving() as (_, _, url):
        for path, status in (("/nope", b"404"), ("/ws", b"426")):
            reader, writer = await asyncio.open_connection("127.0.0.1", port_of(url))
            writer.write(f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
            answer = await asyncio.wait_for(reader.read(), 5)
            assert answer.split(b" ")[1] == status, answer
            writer.close()


async def test_a_flood_pauses_reading_and_every_message_is_handled_in_order() -> None:
    async with serving(QUIET) as (_, endpoint, url):
        endpoint.gate.clear()
        _reader, writer = await raw_client(url)
        send_numbered(writer, range(50))
        await writer.drain()
        await until(lambda: bool(endpoint.conns) and endpoint.conns[0].reading_paused)
        conn = endpoint.conns[0]
        await until(lambda: len(endpoint.handled) == 1)  # the first waits at the gate
        assert not conn.transport.is_reading()  # the socket is not read any more
        queued = len(conn.inbox)
        send_numbered(writer, range(50, 60))  # reading is paused: these wait in the socket
        await writer.drain()
        assert len(conn.inbox) == queued and len(endpoint.handled) == 1
        endpoint.gate.set()
        await until(lambda: len(endpoint.finished) == 60)
        assert endpoint.finished == [str(i) for i in range(60)]
        assert not conn.reading_paused
        writer.close()


async def test_a_peer_that_does_not_read_pauses_its_handling() -> None:
    async with serving(QUIET) as (_, endpoint, url):
        endpoint.reply_size = 1 << 20
        reader, writer = await raw_client(url)
        send_numbered(writer, range(40))
        await writer.drain()
        await until(lambda: bool(endpoint.conns) and endpoint.conns[0].congested)
        conn = endpoint.conns[0]
        assert len(endpoint.finished) < 40  # waits instead of buffering
        got = 0
        while got < 40 * (1 << 20):  # read everything: handling resumes to the end
            chunk = await asyncio.wait_for(reader.read(1 << 20), 5)
            assert chunk, "the server hung up"
            got += len(chunk)
        assert len(endpoint.finished) == 40 and not conn.congested
        writer.close()


async def test_a_message_in_flight_completes_when_its_connection_drops() -> None:
    async with serving(QUIET) as (server, endpoint, url):
        endpoint.gate.clear()
        _reader, writer = await raw_client(url)
        writer.write(client_frame(Opcode.TEXT, b"act") + client_frame(Opcode.TEXT, b"later"))
        await writer.drain()
        await until(lambda: endpoint.handled == ["act"])  # "later" queued behind it
        conn = endpoint.conns[0]
        writer.transport.abort()  # the client vanishes mid-action
        await until(lambda: bool(endpoint.closed_conns) and not server.connections)
        endpoint.gate.set()
        await until(lambda: conn.worker is None)  # the handling is over
        assert endpoint.finished == ["act"]  # not cancelled; what queued behind it is dropped
        assert endpoint.handled == ["act"]


async def test_a_message_arriving_as_the_parked_worker_is_retired_is_handled() -> None:
    async with serving() as (_, endpoint, url):
        _reader, writer = await raw_client(url)
        writer.write(client_frame(Opcode.TEXT, b"one"))
        await writer.drain()
        await until(lambda: endpoint.finished == ["one"])
        conn = endpoint.conns[0]
        await until(lambda: conn.parked is not None)  # idle: the worker waits, parked
        conn.keepalive()  # a keepalive round retires it...
        conn._message(Opcode.TEXT, b"two")  # ...and a message arrives before it has ended
        await until(lambda: endpoint.finished == ["one", "two"])
        await until(lambda: conn.parked is not None)
        conn.pending_ping = None  # (as if the client had answered the first round's ping)
        conn.keepalive()  # retired with nothing to do: the task ends
        await until(lambda: conn.worker is None)
        conn._message(Opcode.TEXT, b"three")  # and the next message starts another
        await until(lambda: endpoint.finished == ["one", "two", "three"])
        writer.close()


async def test_a_failing_handler_closes_with_1011() -> None:
    async with serving() as (_, _, url), connect(url) as ws:
        await ws.send("boom")
        with pytest.raises(ConnectionClosed) as info:
            await ws.recv()
        assert info.value.rcvd is not None and info.value.rcvd.code == 1011


async def test_close_sends_the_code_to_every_client() -> None:
    async with serving() as (server, _, url), connect(url) as ws:
        await server.close(1001)
        with pytest.raises(ConnectionClosed) as info:
            await ws.recv()
        assert info.value.rcvd is not None and info.value.rcvd.code == 1001
        assert not server.connections


def test_broadcast_skips_congested_connections() -> None:
    class Conn:
        def __init__(self, congested: bool) -> None:
            self.congested = congested
            self.sent: list[bytes] = []

        def send_text(self, data: bytes) -> None:
            self.sent.append(data)

    keeping_up, slow = Conn(False), Conn(True)
    conns: list[Any] = [keeping_up, slow]
    broadcast(conns, b"{}")
    assert keeping_up.sent == [b"{}"] and slow.sent == []


async def test_frames_sent_before_the_handshake_answer_are_handled_after_it() -> None:
    async with serving() as (_, endpoint, url):
        reader, writer = await asyncio.open_connection("127.0.0.1", port_of(url))
        writer.write(HANDSHAKE.encode() + client_frame(Opcode.TEXT, b"early"))
        head = await reader.readuntil(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 101")
        reply = await asyncio.wait_for(reader.readexactly(2 + len("early")), 5)
        assert reply[2:] == b"early" and endpoint.handled == ["early"]
        writer.close()


async def test_replies_of_every_header_size_reach_a_client_whole() -> None:
    async with serving(QUIET) as (_, endpoint, url), connect(url, max_size=None) as ws:
        for size in (0, 125, 126, 65535, 65536, 70_000):
            endpoint.reply_size = size
            await ws.send("r")
            assert await ws.recv() == "r" + " " * size
