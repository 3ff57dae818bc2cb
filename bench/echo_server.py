"""The ceiling of this stack: a WebSocket server that parses each JSON message and answers
a JSON object of a fixed size, on the real server's transport (`server.net.transport`,
websockets' Sans-I/O core), limits, event loop and JSON library (orjson). No validation,
no database.

    python -m bench.echo_server --port 0 --reply-bytes 1500 [--connection]

--connection: the same echo on websockets' own asyncio `Connection` (`serve`), the
transport the server used before its own (bench.echo_transports compares the two).
"""

from __future__ import annotations

import argparse
import asyncio
import functools

import orjson
from websockets.asyncio.server import ServerConnection, serve
from websockets.http11 import Request, Response

from server.net.app import LIMITS, run_loop
from server.net.connection import MessageHandler, WsConnection
from server.net.transport import WsServer


class EchoEndpoint:
    def __init__(self, pad: str) -> None:
        self.pad = pad

    async def respond_http(self, conn: WsConnection, request: Request) -> Response | None:
        return None

    def opened(self, conn: WsConnection) -> MessageHandler:
        return functools.partial(self.echo, conn)

    def closed(self, conn: WsConnection) -> None:
        pass

    async def echo(self, conn: WsConnection, frame: str | bytes) -> None:
        msg = orjson.loads(frame)
        conn.send_text(orjson.dumps({"type": "state", "re": msg.get("id"), "pad": self.pad}))


async def connection_echo(port: int, pad: str) -> None:
    async def handler(conn: ServerConnection) -> None:
        async for frame in conn:
            msg = orjson.loads(frame)
            reply = orjson.dumps({"type": "state", "re": msg.get("id"), "pad": pad})
            await conn.send(reply, text=True)

    options = {
        "max_size": LIMITS.max_size,
        "max_queue": LIMITS.max_queue,
        "write_limit": LIMITS.write_limit,
        "ping_interval": LIMITS.ping_interval,
        "ping_timeout": LIMITS.ping_interval,
        "compression": None,
    }
    async with serve(handler, "127.0.0.1", port, **options) as server:
        print(f"listening on ws://127.0.0.1:{server.sockets[0].getsockname()[1]}/ws", flush=True)
        await asyncio.get_running_loop().create_future()


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--reply-bytes", type=int, default=1500)
    ap.add_argument("--connection", action="store_true")
    args = ap.parse_args()
    pad = "x" * max(0, args.reply_bytes - 40)
    if args.connection:
        await connection_echo(args.port, pad)
        return
    server = WsServer(EchoEndpoint(pad), LIMITS)
    port = await server.listen("127.0.0.1", args.port)
    print(f"listening on ws://127.0.0.1:{port}/ws", flush=True)
    await asyncio.get_running_loop().create_future()


if __name__ == "__main__":
    run_loop(main())
