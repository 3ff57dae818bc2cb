"""The ceiling of this stack: a websockets server that parses each JSON message and answers
a JSON object of a fixed size, with the real server's own SERVE_OPTIONS, event loop and
JSON library (orjson). No validation, no database.

    python -m bench.echo_server --port 0 --reply-bytes 1500 [--sansio]

--sansio: the same echo on websockets' Sans-I/O core in a plain asyncio protocol (no
`Connection`, no task per connection): what the transport would cost without the
`Connection` layer (bench.echo_transports compares the two).
"""

from __future__ import annotations

import argparse
import asyncio
from typing import Any

import orjson
from websockets.asyncio.server import ServerConnection, serve
from websockets.frames import Frame, Opcode
from websockets.http11 import Request
from websockets.server import ServerProtocol

from server.net.app import SERVE_OPTIONS, run_loop


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--reply-bytes", type=int, default=1500)
    ap.add_argument("--sansio", action="store_true")
    args = ap.parse_args()
    pad = "x" * max(0, args.reply_bytes - 40)
    if args.sansio:
        await sansio_echo(args.port, pad)
        return

    async def handler(conn: ServerConnection) -> None:
        async for frame in conn:
            msg = orjson.loads(frame)
            reply = orjson.dumps({"type": "state", "re": msg.get("id"), "pad": pad})
            await conn.send(reply, text=True)

    async with serve(handler, "127.0.0.1", args.port, **SERVE_OPTIONS) as server:
        print(f"listening on ws://127.0.0.1:{server.sockets[0].getsockname()[1]}/ws", flush=True)
        await asyncio.get_running_loop().create_future()


class _SansIOEcho(asyncio.Protocol):
    def __init__(self, pad: str) -> None:
        self.pad = pad
        self.ws = ServerProtocol(max_size=SERVE_OPTIONS["max_size"])
        self.transport: Any = None  # uvloop's transports are not asyncio.Transport

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        assert self.transport is not None
        self.ws.receive_data(data)
        for event in self.ws.events_received():
            if isinstance(event, Request):
                self.ws.send_response(self.ws.accept(event))
            elif isinstance(event, Frame) and event.opcode is Opcode.TEXT:
                msg = orjson.loads(event.data)
                self.ws.send_text(
                    orjson.dumps({"type": "state", "re": msg.get("id"), "pad": self.pad})
                )
        for chunk in self.ws.data_to_send():
            if chunk:
                self.transport.write(chunk)
            else:
                self.transport.close()


async def sansio_echo(port: int, pad: str) -> None:
    loop = asyncio.get_running_loop()
    server = await loop.create_server(lambda: _SansIOEcho(pad), "127.0.0.1", port)
    print(f"listening on ws://127.0.0.1:{server.sockets[0].getsockname()[1]}/ws", flush=True)
    await loop.create_future()


if __name__ == "__main__":
    run_loop(main())
