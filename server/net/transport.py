"""WebSocket transport: websockets' Sans-I/O protocol in one asyncio Protocol per connection.

The websockets library parses and writes every byte (handshake, frames, masking, size
limits, close handshake, pong answers). This module only moves bytes between it and the
socket and adds what a server needs around it: a handshake deadline, keepalive pings,
back-pressure both ways and a graceful close. It replaces the library's own asyncio
`Connection`, whose queue, futures and async context managers per message, and tasks per
connection, cost more CPU and memory (docs/BENCHMARKS.md, `bench.echo_transports`).

Contract with the application (an `Endpoint`):
- `respond_http(conn, request)` answers a plain HTTP request (a `Response`), or returns
  None to accept the WebSocket handshake;
- `opened(conn)` returns the connection's message handler: it is awaited once per
  complete message (`str` for text, `bytes` for binary; text that is not UTF-8 arrives
  with its bad bytes as lone surrogates), one at a time and in order, and
  answers with `conn.send_text` or ends with `conn.close`;
- `closed(conn)` is called once an opened connection is gone. A message being handled
  then still runs to its end (an action in flight is never cut in half); the messages
  queued behind it are dropped.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

from websockets.frames import CloseCode, Frame, Opcode
from websockets.http11 import Request, Response
from websockets.protocol import State
from websockets.server import ServerProtocol

log = logging.getLogger("samedeal.transport")
MessageHandler = Callable[[str | bytes], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class Limits:
    """What one connection may hold or take; the defaults are the server's settings."""

    max_size: int = 64 * 1024  # a larger message closes the connection with 1009
    max_queue: int = 32  # messages received but not yet handled before reading pauses
    write_limit: int = 32 * 1024  # unsent bytes before handling pauses (and pushes skip)
    ping_interval: float = 20.0  # a ping this often; no pong by the next one closes (1011)
    open_timeout: float = 10.0  # to complete the opening handshake
    close_timeout: float = 10.0  # for the peer to finish the closing handshake


def text_header(length: int) -> bytes:
    """The header of an unmasked, final text frame carrying `length` bytes."""
    if length < 126:
        return bytes((0x81, length))
    if length < 65536:
        return b"\x81\x7e" + length.to_bytes(2, "big")
    return b"\x81\x7f" + length.to_bytes(8, "big")


class Endpoint(Protocol):
    async def respond_http(self, conn: WsConnection, request: Request) -> Response | None: ...

    def opened(self, conn: WsConnection) -> MessageHandler: ...

    def closed(self, conn: WsConnection) -> None: ...


class WsConnection(asyncio.Protocol):
    """One client connection."""

    def __init__(self, server: WsServer) -> None:
        self.server = server
        self.gone = False  # the TCP connection is lost
        self.limits = server.limits
        self.ws = ServerProtocol(max_size=self.limits.max_size, logger=log)
        self.transport: Any = None  # uvloop's transports are not asyncio.Transport
        self.handshake: asyncio.Task[None] | None = None  # answering the HTTP request
        self.handler: MessageHandler | None = None
        self.inbox: deque[str | bytes] = deque()
        self.worker: asyncio.Task[None] | None = None
        self.fragments: list[bytes] = []
        self.fragmented: Opcode | None = None
        self.reading_paused = False
        self.writable: asyncio.Future[None] | None = None  # pending while writing is paused
        self.pending_ping: bytes | None = None
        self.timer: asyncio.TimerHandle | None = None  # the open or the close deadline

    # -- what the application calls --------------------------------------
    @property
    def congested(self) -> bool:
        """True while the peer is not reading what was sent (writing is paused)."""
        return self.writable is not None

    def send_text(self, data: bytes) -> None:
        """Send one text message (UTF-8 bytes); dropped once the connection is closing.
        Without extensions (the server negotiates none) a server's frame is a header and
        the data as they are (RFC 6455 5.2: no mask), written here without the protocol
        object's frame and buffer (its buffer is always empty between two calls)."""
        ws = self.ws
        if ws.state is State.OPEN:
            if ws.extensions or ws.expect_continuation_frame:
                ws.send_text(data)
                self._flush()
            elif not self.transport.is_closing():
                self.transport.write(text_header(len(data)) + data)

    def close(self, code: int = CloseCode.NORMAL_CLOSURE, reason: str = "") -> None:
        """Start the closing handshake (or drop a connection not yet open)."""
        if self.ws.state is State.OPEN:
            self.ws.send_close(code, reason)
            self._flush()
        elif self.ws.state is State.CONNECTING and self.transport is not None:
            self.transport.close()

    def respond(self, status: int, text: str) -> Response:
        """A plain-text HTTP response for `Endpoint.respond_http`."""
        return self.ws.reject(status, text)

    # -- asyncio.Protocol --------------------------------------------------
    def connection_made(self, transport: Any) -> None:
        self.transport = transport
        transport.set_write_buffer_limits(high=self.limits.write_limit)
        self.server.connections.add(self)
        self.timer = self.server.loop.call_later(self.limits.open_timeout, transport.abort)

    def data_received(self, data: bytes) -> None:
        self.ws.receive_data(data)
        events = self.ws.events_received()
        self._flush()
        for event in events:
            if isinstance(event, Frame):
                self._frame(event)
            elif isinstance(event, Request):
                self.handshake = self.server.loop.create_task(self._handshake(event))

    def eof_received(self) -> None:
        self.ws.receive_eof()
        self._flush()  # the transport closes itself: returning None

    def connection_lost(self, exc: Exception | None) -> None:
        self.gone = True
        self.ws.receive_eof()  # idempotent: the protocol's state becomes CLOSED
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        self.inbox.clear()
        if self.writable is not None:
            self.writable.set_result(None)
            self.writable = None
        self.server.connections.discard(self)
        if self.handler is not None:
            self.server.endpoint.closed(self)

    def pause_writing(self) -> None:
        self.writable = self.server.loop.create_future()

    def resume_writing(self) -> None:
        if self.writable is not None:
            self.writable.set_result(None)
            self.writable = None

    # -- inside ----------------------------------------------------------
    def _flush(self) -> None:
        """Write what the protocol produced; half-close when it asks to; arm the close
        deadline when the peer is expected to close."""
        transport = self.transport
        for chunk in self.ws.data_to_send():
            if transport.is_closing():
                continue
            if chunk:
                transport.write(chunk)
            else:
                transport.write_eof()
        if self.ws.close_expected():
            if self.ws.state is State.CONNECTING:  # an HTTP answer or a refused handshake
                transport.close()
            elif self.timer is None:
                self.timer = self.server.loop.call_later(self.limits.close_timeout, transport.abort)

    async def _handshake(self, request: Request) -> None:
        try:
            response = await self.server.endpoint.respond_http(self, request)
        except Exception:
            log.exception("HTTP request %s failed", request.path)
            response = self.respond(500, "internal error\n")
        if response is None:
            response = self.ws.accept(request)
        if self.transport.is_closing():
            return
        self.ws.send_response(response)
        if response.status_code == 101:
            assert self.timer is not None
            self.timer.cancel()
            self.timer = None
            self.handler = self.server.endpoint.opened(self)
        self._flush()
        self._start_work()

    def _frame(self, frame: Frame) -> None:
        opcode = frame.opcode
        if opcode is Opcode.TEXT or opcode is Opcode.BINARY:
            if frame.fin:
                self._message(opcode, bytes(frame.data))
            else:
                self.fragmented, self.fragments = opcode, [bytes(frame.data)]
        elif opcode is Opcode.CONT and self.fragmented is not None:
            self.fragments.append(bytes(frame.data))
            if frame.fin:
                opcode, self.fragmented = self.fragmented, None
                self._message(opcode, b"".join(self.fragments))
                self.fragments = []
        elif opcode is Opcode.PONG and frame.data == self.pending_ping:
            self.pending_ping = None

    def _message(self, opcode: Opcode, data: bytes) -> None:
        # Text that is not UTF-8 keeps its bad bytes as lone surrogates, so the endpoint
        # refuses it like any bad input instead of the connection closing (PROTOCOL.md).
        message = data.decode("utf-8", "surrogateescape") if opcode is Opcode.TEXT else data
        if self.ws.state is not State.OPEN and self.ws.state is not State.CONNECTING:
            return  # closing: what follows a close is not handled
        self.inbox.append(message)
        if len(self.inbox) >= self.limits.max_queue and not self.reading_paused:
            self.reading_paused = True
            self.transport.pause_reading()
        self._start_work()

    def _start_work(self) -> None:
        """Handle the inbox unless a worker already does, or the handshake is not done
        (a client that sent frames before our 101 gets them handled once it is)."""
        if self.worker is None and self.handler is not None and self.inbox:
            self.worker = self.server.loop.create_task(self._work())

    async def _work(self) -> None:
        """Handle queued messages in order; wait while the peer is not reading."""
        assert self.handler is not None
        try:
            while self.inbox and self.ws.state is State.OPEN:
                message = self.inbox.popleft()
                if self.reading_paused and len(self.inbox) <= self.limits.max_queue // 4:
                    self.reading_paused = False
                    self.transport.resume_reading()
                await self.handler(message)
                if self.writable is not None:
                    await self.writable
        except Exception:
            log.exception("message handler failed")
            self.close(CloseCode.INTERNAL_ERROR, "internal error")
        finally:
            self.worker = None

    def _keepalive(self) -> None:
        """One keepalive round: close if the last ping went unanswered, else ping."""
        if self.ws.state is not State.OPEN:
            return
        if self.pending_ping is not None:
            self.ws.fail(CloseCode.INTERNAL_ERROR, "keepalive ping timeout")
            self._flush()
            return
        self.pending_ping = os.urandom(4)
        self.ws.send_ping(self.pending_ping)
        self._flush()


class WsServer:
    """Listening socket plus every live connection."""

    def __init__(self, endpoint: Endpoint, limits: Limits) -> None:
        self.endpoint = endpoint
        self.limits = limits
        self.loop = asyncio.get_running_loop()
        self.connections: set[WsConnection] = set()
        self.listener: asyncio.AbstractServer | None = None
        self._pinger: asyncio.Task[None] | None = None

    async def listen(self, host: str, port: int, reuse_port: bool = False) -> int:
        """Start accepting; the bound port. `reuse_port`: several processes share it
        (SO_REUSEPORT: the kernel spreads new connections among them)."""
        self.listener = await self.loop.create_server(
            lambda: WsConnection(self), host, port, reuse_port=reuse_port or None
        )
        self._pinger = self.loop.create_task(self._ping_forever())
        return int(self.listener.sockets[0].getsockname()[1])

    def stop_accepting(self) -> None:
        if self.listener is not None:
            self.listener.close()

    async def close(self, code: int = CloseCode.GOING_AWAY, reason: str = "") -> None:
        """Stop accepting, close every connection with `code`, wait for them to go."""
        self.stop_accepting()
        if self._pinger is not None:
            self._pinger.cancel()
        for conn in list(self.connections):
            conn.close(code, reason)
        deadline = self.loop.time() + self.limits.close_timeout
        while self.connections and self.loop.time() < deadline:
            await asyncio.sleep(0.01)
        for conn in list(self.connections):
            conn.transport.abort()
        if self.listener is not None:
            await self.listener.wait_closed()

    async def _ping_forever(self) -> None:
        while True:
            await asyncio.sleep(self.limits.ping_interval)
            for conn in list(self.connections):
                conn._keepalive()


def broadcast(connections: list[WsConnection], data: bytes) -> None:
    """Send one text message to each open connection that is keeping up; a congested
    one misses it (standings are whole snapshots: the next push brings it up to date)."""
    for conn in connections:
        if not conn.congested:
            conn.send_text(data)
