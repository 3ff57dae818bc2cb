"""A TCP proxy on loopback that a test can cut: a node given a database URL through it
loses PostgreSQL while keeping its own clients.

The proxy runs its own event loop in a thread of its own, so it keeps forwarding while
the test blocks (starting a server process, running the command line) and can be driven
from synchronous and asynchronous code alike.

Two ways to cut:
- ``cut("reset")``: every connection is reset (RST on both sides) and new ones are
  accepted and reset at once, as when the database's host goes down or refuses;
- ``cut("blackhole")``: nothing is forwarded any more, but every socket stays open and
  new connections are accepted and left unanswered, as when packets are dropped on the
  way (a partition): a peer learns of it only through its own timeouts.

``cut_after(marker, mode)`` arms a cut instead: it falls right after the first chunk the
client sends that holds `marker` has been passed on (say, the text of a row being
written), so it lands inside a transaction on purpose.

``restore()`` forwards again: held data flows (as TCP would retransmit it after a
partition heals) and connections accepted during the cut are connected upstream.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import struct
import threading
import time
from collections.abc import Coroutine
from typing import Any, Literal, TypeVar

Cut = Literal["reset", "blackhole"]
T = TypeVar("T")
CHUNK = 65536


def _reset(writer: asyncio.StreamWriter) -> None:
    """Close with an RST (linger 0) rather than a FIN."""
    sock = writer.get_extra_info("socket")
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    writer.transport.abort()


class TcpProxy:
    """Forwards 127.0.0.1:port to (target_host, target_port) until cut."""

    def __init__(self, target_port: int, target_host: str = "127.0.0.1") -> None:
        self.target = (target_host, target_port)
        self.port = 0
        self.accepted = 0  # connections accepted, all told
        self.resets = 0  # connections reset by a cut (or accepted during a reset cut)
        self.mode: Cut | None = None
        self.cut_at: float | None = None  # time.monotonic() of the last cut
        self._armed: tuple[bytes, Cut] | None = None
        self._held: list[bytes] = []  # chunks from clients held by the current cut
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._server: asyncio.Server | None = None
        self._flowing: asyncio.Event | None = None
        self._links: set[tuple[asyncio.StreamWriter, asyncio.StreamWriter | None]] = set()
        self._tasks: set[asyncio.Task[None]] = set()

    # -- control, from any thread ----------------------------------------------------
    def start(self) -> TcpProxy:
        self._thread.start()
        self.port = self._call(self._start())
        return self

    def cut(self, mode: Cut) -> None:
        self._call(self._cut(mode))

    def cut_after(self, marker: bytes, mode: Cut) -> None:
        """Cut (`mode`) once a chunk from a client holding `marker` has been forwarded."""
        self._call(self._arm(marker, mode))

    def restore(self) -> None:
        self._call(self._restore())

    def close(self) -> None:
        if not self._thread.is_alive():
            return
        self._call(self._close())
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=5)
        self._loop.close()

    def holds(self, marker: bytes) -> bool:
        """Whether a chunk a client sent during the current cut, held, holds `marker`
        (say, an action's text: a write is then in flight, stuck at the cut)."""
        return any(marker in chunk for chunk in list(self._held))

    @property
    def open_links(self) -> int:
        return len(self._links)

    def __enter__(self) -> TcpProxy:
        return self.start()

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def _call(self, coro: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(timeout=10)

    # -- in the proxy's loop -----------------------------------------------------------
    async def _start(self) -> int:
        self._flowing = asyncio.Event()
        self._flowing.set()
        self._server = await asyncio.start_server(self._accepted, "127.0.0.1", 0)
        port: int = self._server.sockets[0].getsockname()[1]
        return port

    async def _arm(self, marker: bytes, mode: Cut) -> None:
        self._armed = (marker, mode)

    async def _cut(self, mode: Cut) -> None:
        assert self._flowing is not None
        self._armed = None
        self.mode = mode
        self.cut_at = time.monotonic()
        self._flowing.clear()
        if mode == "reset":
            for down, up in list(self._links):
                self._drop(down, up)
            self.resets += len(self._links)
            self._links.clear()

    async def _restore(self) -> None:
        assert self._flowing is not None
        self._armed = None
        self.mode = None
        self._held.clear()
        self._flowing.set()

    async def _close(self) -> None:
        if self._server is not None:
            self._server.close()
        for down, up in list(self._links):
            self._drop(down, up)
        self._links.clear()
        assert self._flowing is not None
        self._flowing.set()  # waiting connections see they are gone and end
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=2)
        for task in list(self._tasks):
            task.cancel()

    @staticmethod
    def _drop(down: asyncio.StreamWriter, up: asyncio.StreamWriter | None) -> None:
        _reset(down)
        if up is not None:
            _reset(up)

    async def _accepted(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        assert self._flowing is not None
        self.accepted += 1
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        link: tuple[asyncio.StreamWriter, asyncio.StreamWriter | None] = (writer, None)
        try:
            if self.mode == "reset":
                self.resets += 1
                _reset(writer)
                return
            self._links.add(link)
            await self._flowing.wait()  # a connection made during a blackhole waits
            if link not in self._links:  # reset meanwhile
                return
            try:
                up_reader, up_writer = await asyncio.open_connection(*self.target)
            except OSError:
                _reset(writer)
                return
            if link not in self._links:  # reset while connecting upstream
                _reset(up_writer)
                return
            self._links.discard(link)
            link = (writer, up_writer)
            self._links.add(link)
            await asyncio.gather(
                self._pump(reader, up_writer, link, True), self._pump(up_reader, writer, link)
            )
        finally:
            self._links.discard(link)
            self._tasks.discard(task)
            for w in link:
                if w is not None and not w.is_closing():
                    w.close()

    async def _pump(
        self,
        source: asyncio.StreamReader,
        sink: asyncio.StreamWriter,
        link: tuple[asyncio.StreamWriter, asyncio.StreamWriter | None],
        from_client: bool = False,
    ) -> None:
        """Copy one direction; data read while cut is held until restored (or dropped with
        the connection by a reset)."""
        assert self._flowing is not None
        try:
            while True:
                data = await source.read(CHUNK)
                if not self._flowing.is_set():
                    if from_client:
                        self._held.append(data)
                    await self._flowing.wait()
                if link not in self._links:
                    return
                if not data:  # end of stream: pass it on
                    for w in link:
                        if w is not None and not w.is_closing():
                            w.close()
                    return
                sink.write(data)
                await sink.drain()
                if from_client and self._armed is not None and self._armed[0] in data:
                    await self._cut(self._armed[1])
        except (ConnectionError, OSError):
            for w in link:
                if w is not None:
                    w.transport.abort()
