"""The ceiling of this stack: a websockets server that parses each JSON message and answers
a JSON object of a fixed size, with the real server's own SERVE_OPTIONS, event loop and
JSON library (orjson). No validation, no database.

    python -m bench.echo_server --port 0 --reply-bytes 1500
"""

from __future__ import annotations

import argparse
import asyncio

import orjson
from websockets.asyncio.server import ServerConnection, serve

from server.net.app import SERVE_OPTIONS, run_loop


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--reply-bytes", type=int, default=1500)
    args = ap.parse_args()
    pad = "x" * max(0, args.reply_bytes - 40)

    async def handler(conn: ServerConnection) -> None:
        async for frame in conn:
            msg = orjson.loads(frame)
            reply = orjson.dumps({"type": "state", "re": msg.get("id"), "pad": pad})
            await conn.send(reply, text=True)

    async with serve(handler, "127.0.0.1", args.port, **SERVE_OPTIONS) as server:
        print(f"listening on ws://127.0.0.1:{server.sockets[0].getsockname()[1]}/ws", flush=True)
        await asyncio.get_running_loop().create_future()


if __name__ == "__main__":
    run_loop(main())
