"""One WebSocket connection: websockets' Sans-I/O protocol in one asyncio Protocol.

The websockets library parses and writes every byte (handshake, frames, masking, size
limits, close handshake, pong answers). `WsConnection` only moves bytes between it and
the socket and adds what a server needs around it: a handshake deadline, keepalive pings,
back-pressure both ways and a graceful close. It knows its server as a `Host`, and the
application as an `Endpoint` (server/net/endpoint.py; the contract: transport.py).

Against hostile peers (docs/RELIABILITY.md, "Hostile clients"): pings, pongs and
continuation frames are rate-limited like messages (`conn.bucket`, at the session's rate)
and a ping past it gets no pong; a message's fragments gather in one buffer, at most
`max_fragments` of them; nothing more is read from a peer that does not read what it was
sent; connections per address and in all are capped (`Connections`), and a connection
that has not authenticated or subscribed (`conn.engaged`) closes after `idle_timeout`
without a message. The library's lines go to `samedeal.access`, off unless asked for.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections import deque
from typing import Any

from websockets.frames import CloseCode, Frame, Opcode
from websockets.http11 import Request, Response
from websockets.protocol import State

from server.net.connection_limits import BODY_CHUNK, FEED_BUDGET_S, FEED_SLICE, TOO_MANY
from server.net.endpoint import Host, MessageHandler
from server.net.frames import GuardedProtocol, text_header
from server.net.limits import TokenBucket, trusted
from server.ops import faults

__all__ = ["MessageHandler", "WsConnection", "access_log"]

log = logging.getLogger("samedeal.transport")
access_log = logging.getLogger("samedeal.access")  # per request and connection: off by default


class WsConnection(asyncio.Protocol):
    """One client connection."""

    def __init__(self, server: Host[WsConnection]) -> None:
        self.server = server
        self.gone = False  # the TCP connection is lost
        self.limits = server.limits
        self.ws = GuardedProtocol(max_size=self.limits.max_size, logger=access_log)
        self.ws.spend = self._spend
        self.ip = ""  # the peer's address (a trusted proxy's client's, once known)
        self.proxied = False  # the peer is a trusted proxy
        self.host: str | None = None  # the WebSocket request's Host (v1.4: passkeys' RP)
        self.counted_ip: str | None = None  # the address it counts under
        self.admitted = False  # counted in the server's Connections
        self.bucket = TokenBucket(self.limits.rate, self.limits.burst)
        self.strikes = 0  # frames past the rate in a row
        self.engaged = False  # authenticated or watching: no idle timeout
        self.last_message = time.monotonic()
        self.transport: Any = None  # uvloop's transports are not asyncio.Transport
        self.handshake: asyncio.Task[None] | None = None  # answering the HTTP request
        self.handler: MessageHandler | None = None
        self.inbox: deque[str | bytes] = deque()
        self.worker: asyncio.Task[None] | None = None  # handling the inbox, or parked
        self.parked: asyncio.Future[None] | None = None  # the idle worker waits on it
        self.fragments = bytearray()
        self.fragment_count = 0
        self.fragmented: Opcode | None = None
        self.reading_paused = False  # too many messages wait to be handled
        self.not_reading = False  # the transport's reading is paused (that, or congested)
        self.feed_hold = False  # the bytes read wait for the next turn of the loop
        self.unfed = b""  # bytes read, not yet handed to the protocol (from unfed_at)
        self.unfed_at = 0
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
        Without extensions (none is negotiated) a server's frame is a header and the data
        (RFC 6455 5.2: no mask), written without the protocol object's frame and buffer."""
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

    def forwarded(self, client_ip: str) -> bool:
        """A trusted proxy's connection is its client's, from `client_ip` (its
        X-Forwarded-For): counted under that address; False when that hits the cap."""
        self.ip = client_ip
        if self.counted_ip is not None:
            return True
        refused = self.server.counts.admit_ip(client_ip)
        if refused is not None:
            self.limit_hit(refused, held=self.server.counts.by_ip.get(client_ip, 0))
            return False
        self.counted_ip = client_ip
        return True

    def limit_hit(self, limit: str, **fields: object) -> None:
        """Log (rate-limited per address) that this connection hit `limit`."""
        self.server.limit_log.hit(limit, self.ip, **fields)

    # -- asyncio.Protocol --------------------------------------------------
    def connection_made(self, transport: Any) -> None:
        self.transport = transport
        peer = transport.get_extra_info("peername")
        self.ip = str(peer[0]) if isinstance(peer, tuple) and peer else "unix"
        self.proxied = trusted(self.ip, self.server.proxies)
        self.counted_ip = None if self.proxied else self.ip
        refused = self.server.counts.admit(self.counted_ip)
        if refused is not None:  # answered at once: no task, no parser; what the peer
            self.limit_hit(refused, held=self.server.counts.by_ip.get(self.ip, 0))
            transport.write(TOO_MANY)  # sends is read and dropped until it closes (a
            transport.write_eof()  # close with its request unread would reset the
            self.gone = True  # connection, losing the 503), for a second at most
            self.server.loop.call_later(1.0, transport.abort)
            return
        self.admitted = True
        transport.set_write_buffer_limits(high=self.limits.write_limit)
        self.server.connections.add(self)
        self.timer = self.server.loop.call_later(self.limits.open_timeout, transport.abort)

    def data_received(self, data: bytes) -> None:
        if self.gone:
            return
        if self.unfed_at < len(self.unfed):  # arrived as reading paused: after the rest
            self.unfed = self.unfed[self.unfed_at :] + data
        elif len(data) <= FEED_SLICE and not self.not_reading:  # the usual: one slice,
            if self.ws.state is not State.CLOSED:  # handed over as `_feed` would at once
                self._receive(data)
            return
        else:
            self.unfed = data
        self.unfed_at = 0
        self._feed()

    def _feed(self) -> None:
        """Hand the bytes read to the protocol FEED_SLICE at a time, for FEED_BUDGET_S
        per turn of the event loop at most (parsing thousands of tiny frames at once held
        it for hundreds of ms), none while reading is paused, and none once the connection is
        closed (one failed for abuse is closed at once, `_fail`: what its peer sent
        after that is dropped unparsed)."""
        until = time.perf_counter() + FEED_BUDGET_S
        while self.unfed_at < len(self.unfed):
            if self.not_reading or self.gone:
                return  # the rest waits for reading to resume
            if self.ws.state is State.CLOSED:
                self.unfed, self.unfed_at = b"", 0
                return
            if time.perf_counter() > until:  # the next turn: other connections first
                self.feed_hold = True
                self._reading()
                self.server.loop.call_soon(self._feed_later)
                return
            piece = self.unfed[self.unfed_at : self.unfed_at + FEED_SLICE]
            self.unfed_at += len(piece)
            self._receive(piece)
        self.unfed, self.unfed_at = b"", 0

    def _feed_later(self) -> None:
        self.feed_hold = False
        self._reading()
        self._feed()

    def _receive(self, data: bytes) -> None:
        payload = self.ws.whole_text(data)
        if payload is not None:  # one whole text frame: the parser's work, done at once
            self._message(Opcode.TEXT, payload)
            return
        self.ws.receive_data(data)
        events = self.ws.events_received()
        self._flush()
        for event in events:
            if isinstance(event, Frame):
                self._frame(event)
            elif isinstance(event, Request):
                if self.timer is not None:  # the request is in: the server's time is its
                    self.timer.cancel()  # own (a bundle's build takes longer than the
                    self.timer = None  # open deadline; _send_large has a deadline)
                self.handshake = self.server.loop.create_task(self._handshake(event))

    def eof_received(self) -> None:
        if self.gone:
            self.transport.close()
            return None
        self.ws.receive_eof()
        self._flush()  # the transport closes itself: returning None

    def connection_lost(self, exc: Exception | None) -> None:
        self.gone = True
        if not self.admitted:
            return
        self.admitted = False
        self.server.counts.release(self.counted_ip)
        self.ws.receive_eof()  # idempotent: the protocol's state becomes CLOSED
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        self.inbox.clear()
        self._unpark()
        if self.writable is not None:
            self.writable.set_result(None)
            self.writable = None
        self.server.connections.discard(self)
        if self.handler is not None:
            self.server.endpoint.closed(self)

    def pause_writing(self) -> None:
        """The peer does not read: stop reading it too (nothing it sends, pings
        included, can make us write more until it reads)."""
        self.writable = self.server.loop.create_future()
        self._reading()

    def resume_writing(self) -> None:
        if self.writable is not None:
            self.writable.set_result(None)
            self.writable = None
        self._reading()

    # -- inside ----------------------------------------------------------
    def _reading(self) -> None:
        """Read the socket unless messages pile up or the peer does not read."""
        stop = self.reading_paused or self.writable is not None or self.feed_hold
        if stop == self.not_reading or self.gone or self.transport.is_closing():
            return
        self.not_reading = stop
        if stop:
            self.transport.pause_reading()
        else:
            self.transport.resume_reading()
            if self.unfed_at < len(self.unfed) and not self.feed_hold:
                self.server.loop.call_soon(self._feed)  # what was read before the pause

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
        if len(response.body) > BODY_CHUNK:
            await self._send_large(response)
            return
        self.ws.send_response(response)
        if response.status_code == 101:
            self.handler = self.server.endpoint.opened(self)
        self._flush()
        self._start_work()

    def _frame(self, frame: Frame) -> None:
        opcode = frame.opcode
        if opcode is Opcode.TEXT or opcode is Opcode.BINARY:
            if frame.fin:
                self._message(opcode, bytes(frame.data))
            else:
                self.fragmented, self.fragments = opcode, bytearray(frame.data)
                self.fragment_count = 1
        elif opcode is Opcode.CONT and self.fragmented is not None:
            self.fragment_count += 1
            if self.fragment_count > self.limits.max_fragments:
                self.limit_hit("max_fragments", fragments=self.fragment_count)
                self._fail(CloseCode.MESSAGE_TOO_BIG, "too many fragments")
                return
            if not self._spend("fragment"):
                return
            self.fragments += frame.data
            if frame.fin:
                opcode, self.fragmented = self.fragmented, None
                data, self.fragments = bytes(self.fragments), bytearray()
                self._message(opcode, data)
        elif opcode is Opcode.PONG:
            if frame.data == self.pending_ping:
                self.pending_ping = None
            self._spend("pong")

    def _spend(self, what: str) -> bool:
        """A token for a control or continuation frame; past the rate it is refused.
        Each refusal is a strike and each frame let through takes one away: a peer
        sending faster than twice the rate gathers `abuse_strikes` and is closed (1008),
        one a little over it only has frames refused."""
        if self.bucket.take():
            self.strikes = max(0, self.strikes - 1)
            return True
        self.strikes += 1
        if self.strikes == 1:
            self.limit_hit("rate", frame=what)
        if self.strikes >= self.limits.abuse_strikes:
            self._fail(CloseCode.POLICY_VIOLATION, "rate limit abused")
        return False

    def _fail(self, code: int, reason: str) -> None:
        """Close at once (no more frames are read): the peer broke a limit."""
        if self.ws.state is State.OPEN:
            self.fragments, self.fragmented = bytearray(), None
            self.ws.fail(code, reason)
            self._flush()
            self.transport.close()  # after the close frame: nothing more is read

    def _message(self, opcode: Opcode, data: bytes) -> None:
        # Text that is not UTF-8 keeps its bad bytes as lone surrogates, so the endpoint
        # refuses it like any bad input instead of the connection closing (PROTOCOL.md).
        message = data.decode("utf-8", "surrogateescape") if opcode is Opcode.TEXT else data
        state = self.ws.state
        if state is not State.OPEN and state is not State.CONNECTING:
            return  # closing: what follows a close is not handled
        if not self.engaged:  # (an engaged connection has no idle timeout)
            self.last_message = time.monotonic()
        self.inbox.append(message)
        if len(self.inbox) >= self.limits.max_queue and not self.reading_paused:
            self.reading_paused = True
            self._reading()
        self._start_work()

    async def _send_large(self, response: Response) -> None:
        """An HTTP response with a large body, written a chunk at a time as the peer
        reads (never a copy of the body: a cached bundle is shared by every request),
        then the connection closed. A peer that goes away stops the writing."""
        body = memoryview(response.body)
        if self.timer is not None:
            self.timer.cancel()
        seconds = 60.0 + len(body) / (256 * 1024)  # a reader of 256 KiB/s finishes
        self.timer = self.server.loop.call_later(seconds, self.transport.abort)
        head = Response(response.status_code, response.reason_phrase, response.headers, b"")
        self.ws.send_response(head)
        chunks = self.ws.data_to_send()  # the head, then the end of the stream
        self.transport.write(chunks[0])
        for start in range(0, len(body), BODY_CHUNK):
            if self.gone or self.transport.is_closing():
                return
            self.transport.write(body[start : start + BODY_CHUNK])
            if self.writable is not None:
                await self.writable
        if not self.transport.is_closing():
            self.transport.close()

    def _start_work(self) -> None:
        """Wake the parked worker, or start one unless one is at work or the handshake is
        not done (frames a client sent before our 101 are handled once it is)."""
        if self.handler is None or not self.inbox:
            return
        if self.parked is not None:
            self._unpark()
        elif self.worker is None:
            self.worker = self.server.loop.create_task(self._work())

    def _unpark(self) -> None:
        """Wake the parked worker: it handles the inbox, or ends if it finds it empty (a
        message come in meanwhile is handled: `_start_work` finds a worker, not parked)."""
        parked, self.parked = self.parked, None
        if parked is not None and not parked.done():
            parked.set_result(None)

    async def _work(self) -> None:
        """Handle queued messages in order; wait while the peer is not reading. Then park
        for the next one (cheaper than a task per message) until a keepalive round retires
        it (an idle connection holds no task for long) or the connection goes."""
        assert self.handler is not None
        try:
            while True:
                while self.inbox and self.ws.state is State.OPEN:
                    message = self.inbox.popleft()
                    if self.reading_paused and len(self.inbox) <= self.limits.max_queue // 4:
                        self.reading_paused = False
                        self._reading()
                    await self.handler(message)
                    if self.writable is not None:
                        await self.writable
                if self.ws.state is not State.OPEN:
                    return  # closing: what follows is not handled
                self.parked = self.server.loop.create_future()
                await self.parked
                if not self.inbox:
                    return  # retired, or the connection went
        except Exception as exc:
            if not faults.report(exc, "connection"):
                log.exception("message handler failed")
            self.close(CloseCode.INTERNAL_ERROR, "internal error")
        finally:
            self.worker = self.parked = None

    def idle_check(self, now: float) -> None:
        """Close a connection that is neither authenticated nor watching and has sent
        no message for `idle_timeout` (1008)."""
        if (
            self.ws.state is State.OPEN
            and not self.engaged
            and now - self.last_message >= self.limits.idle_timeout
            and (self.worker is None or self.parked is not None)
        ):
            self.limit_hit("idle_timeout", seconds=self.limits.idle_timeout)
            self.close(CloseCode.POLICY_VIOLATION, "idle: authenticate or subscribe")

    def keepalive(self) -> None:
        """A keepalive round: retire a parked worker; ping (close if the last is unanswered)."""
        self._unpark()
        if self.ws.state is not State.OPEN:
            return
        if self.pending_ping is not None:
            self.ws.fail(CloseCode.INTERNAL_ERROR, "keepalive ping timeout")
            self._flush()
            return
        self.pending_ping = os.urandom(4)
        self.ws.send_ping(self.pending_ping)
        self._flush()
