"""One WebSocket connection (server/net/connection.py) on a transport the test holds: the
bytes it writes are read back as frames, and what a peer sends is handed to
`data_received`. The handshake and its deadline, messages handed over in order, the
limits against hostile peers (connections per address, the rate of control frames,
fragments, a queue that stops the reading, a peer that does not read), keepalive pings,
the idle close, and what a closed connection gives back."""

from __future__ import annotations

import asyncio
import functools
import logging
from typing import Any

import pytest
from websockets.frames import Frame, Opcode
from websockets.http11 import Request, Response

from server.net.connection import WsConnection
from server.net.connection_limits import TOO_MANY
from tests.net.conftest import Host, Limits

HANDSHAKE = (
    b"GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
)
QUIET = Limits(max_queue=4, rate=1000, burst=1000)


class Transport:
    """A socket's transport as the connection uses it; what was written is kept."""

    def __init__(self, ip: str = "10.0.0.1") -> None:
        self.ip = ip
        self.written = bytearray()
        self.eof = False
        self.closing = False
        self.aborted = False
        self.reading = True

    def get_extra_info(self, name: str) -> Any:
        return (self.ip, 50000) if name == "peername" else None

    def write(self, data: bytes) -> None:
        self.written += data

    def write_eof(self) -> None:
        self.eof = True

    def close(self) -> None:
        self.closing = True

    def abort(self) -> None:
        self.aborted = self.closing = True

    def is_closing(self) -> bool:
        return self.closing

    def set_write_buffer_limits(self, high: int) -> None:
        self.high = high

    def pause_reading(self) -> None:
        self.reading = False

    def resume_reading(self) -> None:
        self.reading = True

    def frames(self) -> list[tuple[Opcode, bytes]]:
        """The frames written after the handshake's answer (unmasked, as a server's are)."""
        data = bytes(self.written[self.written.index(b"\r\n\r\n") + 4 :])
        out = []
        while data:
            size, start = data[1] & 0x7F, 2
            if size == 126:
                size, start = int.from_bytes(data[2:4], "big"), 4
            out.append((Opcode(data[0] & 0x0F), data[start : start + size]))
            data = data[start + size :]
        return out


class Endpoint:
    """Upgrades /ws, answers other paths 404, keeps what each connection handed over."""

    def __init__(self) -> None:
        self.handled: list[str | bytes] = []
        self.gone: list[WsConnection] = []
        self.gate = asyncio.Event()
        self.gate.set()

    async def respond_http(self, conn: WsConnection, request: Request) -> Response | None:
        return None if request.path == "/ws" else conn.respond(404, "not found\n")

    def opened(self, conn: WsConnection) -> Any:
        return functools.partial(self.on_message, conn)

    def closed(self, conn: WsConnection) -> None:
        self.gone.append(conn)

    async def on_message(self, conn: WsConnection, message: str | bytes) -> None:
        await self.gate.wait()
        self.handled.append(message)


def frame(opcode: Opcode, data: bytes, fin: bool = True) -> bytes:
    return Frame(opcode, data, fin).serialize(mask=True, extensions=[])


async def turns(n: int = 20) -> None:
    """Let the loop run the tasks the connection started (no time passes)."""
    for _ in range(n):
        await asyncio.sleep(0)


async def opened(
    limits: Limits = QUIET, ip: str = "10.0.0.1", host: Host | None = None
) -> tuple[WsConnection, Transport, Any]:
    """A connection past its opening handshake, with its transport and endpoint."""
    host = host or Host(Endpoint(), limits)
    conn, transport = WsConnection(host), Transport(ip)
    conn.connection_made(transport)
    conn.data_received(HANDSHAKE)
    await turns()
    assert transport.written.startswith(b"HTTP/1.1 101"), bytes(transport.written)
    return conn, transport, host.endpoint


async def test_messages_are_handed_over_whole_and_in_order() -> None:
    conn, transport, endpoint = await opened()
    assert conn in conn.server.connections and conn.timer is None  # the open deadline: off
    conn.data_received(frame(Opcode.TEXT, b"one") + frame(Opcode.BINARY, b"\x00\x01"))
    conn.data_received(frame(Opcode.TEXT, b"fr", fin=False) + frame(Opcode.CONT, b"ag"))
    conn.data_received(frame(Opcode.TEXT, b"a\xff"))  # not UTF-8: handed over, not closed
    await turns()
    assert endpoint.handled == ["one", b"\x00\x01", "frag", "a\udcff"]
    conn.send_text(b"reply")
    assert transport.frames()[-1] == (Opcode.TEXT, b"reply")


async def test_a_plain_http_request_is_answered_and_the_connection_closed() -> None:
    host = Host(Endpoint(), QUIET)
    conn, transport = WsConnection(host), Transport()
    conn.connection_made(transport)
    assert conn.timer is not None  # the open deadline runs until the request is in
    conn.data_received(b"GET /nothing HTTP/1.1\r\nHost: x\r\n\r\n")
    await turns()
    assert transport.written.startswith(b"HTTP/1.1 404") and transport.closing
    assert conn.handler is None


async def test_past_the_connections_cap_the_answer_is_503_at_once() -> None:
    host = Host(Endpoint(), Limits(max_connections_per_ip=1))
    first = WsConnection(host)
    first.connection_made(Transport())
    second, transport = WsConnection(host), Transport()
    second.connection_made(transport)
    assert bytes(transport.written) == TOO_MANY and transport.eof and second.gone
    assert host.connections == {first} and host.counts.by_ip == {"10.0.0.1": 1}
    assert host.limit_log.hits == 1
    second.connection_lost(None)  # never admitted: nothing to give back
    first.connection_lost(None)
    assert host.counts.total == 0 and host.connections == set()


async def test_a_trusted_proxys_connection_counts_under_its_client_once_named() -> None:
    import ipaddress

    host = Host(Endpoint(), Limits(max_connections_per_ip=1))
    host.proxies = (ipaddress.ip_network("10.0.0.0/8"),)
    conn = WsConnection(host)
    conn.connection_made(Transport("10.0.0.9"))
    assert conn.proxied and conn.counted_ip is None and host.counts.by_ip == {}
    assert conn.forwarded("1.2.3.4") and conn.counted_ip == "1.2.3.4"
    assert host.counts.by_ip == {"1.2.3.4": 1}
    other = WsConnection(host)
    other.connection_made(Transport("10.0.0.9"))
    assert not other.forwarded("1.2.3.4")  # its client is at the cap already
    conn.connection_lost(None)
    assert host.counts.by_ip == {}


async def test_pings_past_the_rate_get_no_pong_and_sustained_ones_close_with_1008() -> None:
    conn, transport, _ = await opened(Limits(rate=0.001, burst=2, abuse_strikes=3))
    conn.data_received(b"".join(frame(Opcode.PING, b"p") for _ in range(6)))
    kinds = [opcode for opcode, _ in transport.frames()]
    assert kinds == [Opcode.PONG, Opcode.PONG, Opcode.CLOSE]
    assert transport.frames()[-1][1][:2] == (1008).to_bytes(2, "big") and transport.closing


async def test_a_message_in_more_fragments_than_the_cap_closes_with_1009() -> None:
    conn, transport, endpoint = await opened(Limits(max_fragments=3, rate=1000, burst=1000))
    conn.data_received(frame(Opcode.TEXT, b"a", fin=False))
    conn.data_received(b"".join(frame(Opcode.CONT, b"b", fin=False) for _ in range(5)))
    await turns()
    close = transport.frames()[-1]
    assert close[0] is Opcode.CLOSE and close[1][:2] == (1009).to_bytes(2, "big")
    assert endpoint.handled == [] and conn.fragments == bytearray()


async def test_a_full_queue_stops_the_reading_until_it_drains() -> None:
    conn, transport, endpoint = await opened(Limits(max_queue=4, rate=1000, burst=1000))
    endpoint.gate.clear()
    for i in range(6):
        conn.data_received(frame(Opcode.TEXT, str(i).encode()))
    await turns()
    assert conn.reading_paused and not transport.reading
    endpoint.gate.set()
    await turns(50)
    assert endpoint.handled == [str(i) for i in range(6)]
    assert not conn.reading_paused and transport.reading


async def test_a_peer_that_does_not_read_is_not_read_and_its_handling_waits() -> None:
    conn, transport, endpoint = await opened()
    conn.pause_writing()
    assert conn.congested and not transport.reading
    conn.data_received(frame(Opcode.TEXT, b"one") + frame(Opcode.TEXT, b"two"))
    await turns()
    assert endpoint.handled == [] and conn.unfed  # what it sent waits, unparsed
    conn.resume_writing()
    await turns()
    assert endpoint.handled == ["one", "two"] and not conn.congested and transport.reading


async def test_an_unanswered_keepalive_ping_closes_with_1011_an_answered_one_does_not() -> None:
    conn, transport, _ = await opened()
    conn.keepalive()
    opcode, sent = transport.frames()[-1]
    assert opcode is Opcode.PING and conn.pending_ping == sent
    conn.data_received(frame(Opcode.PONG, sent))
    assert conn.pending_ping is None
    conn.keepalive()
    conn.keepalive()  # the second ping unanswered by the next round
    opcode, reason = transport.frames()[-1]
    assert opcode is Opcode.CLOSE and reason[:2] == (1011).to_bytes(2, "big")


async def test_a_silent_connection_neither_signed_in_nor_watching_is_closed() -> None:
    conn, transport, _ = await opened(Limits(idle_timeout=5.0))
    conn.engaged = True
    conn.idle_check(conn.last_message + 60)
    assert transport.frames() == []
    conn.engaged = False
    conn.idle_check(conn.last_message + 4.9)
    assert transport.frames() == []
    conn.idle_check(conn.last_message + 5.0)
    [(opcode, reason)] = transport.frames()
    assert opcode is Opcode.CLOSE and reason[:2] == (1008).to_bytes(2, "big")
    assert conn.server.limit_log.hits == 1


async def test_a_lost_connection_gives_its_place_back_and_is_closed_once() -> None:
    conn, transport, endpoint = await opened()
    host = conn.server
    conn.connection_lost(None)
    conn.connection_lost(None)
    assert endpoint.gone == [conn] and host.connections == set() and host.counts.total == 0
    conn.send_text(b"late")  # dropped: the connection is closed
    assert transport.frames() == []


async def test_a_handler_that_fails_closes_with_1011(caplog: pytest.LogCaptureFixture) -> None:
    conn, transport, _ = await opened()

    async def broken(_message: str | bytes) -> None:
        raise RuntimeError("handler bug")

    conn.handler = broken
    caplog.set_level(logging.ERROR, "samedeal.transport")
    conn.data_received(frame(Opcode.TEXT, b"boom"))
    await turns()
    opcode, reason = transport.frames()[-1]
    assert opcode is Opcode.CLOSE and reason[:2] == (1011).to_bytes(2, "big")
    assert "message handler failed" in caplog.text


def test_the_library_logs_per_connection_only_to_the_access_logger() -> None:
    class Server:
        limits = QUIET

    assert WsConnection(Server()).ws.logger.name == "samedeal.access"  # type: ignore[arg-type, union-attr]
