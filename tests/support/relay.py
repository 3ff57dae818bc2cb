"""A local drand relay for tests: drand's HTTP API (GET /CHAIN_HASH/public/ROUND) over a
KeyedNetwork, served on 127.0.0.1 from a thread. Each relay has a mode: "ok", "slow"
(answers after `delay_s`), "wrong" (another round's signature), "garbage" (not JSON),
"error" (HTTP 500); rounds after `latest` are 404, as on a real relay before they exist."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.support.beacon import KeyedNetwork


class Relay:
    def __init__(self, network: KeyedNetwork, mode: str = "ok", delay_s: float = 2.0) -> None:
        self.network = network
        self.mode = mode
        self.delay_s = delay_s
        self.latest = 0  # the last round produced
        self.requests: list[str] = []
        self.url = ""

    def answer(self, path: str) -> tuple[int, bytes]:
        self.requests.append(path)
        parts = path.strip("/").split("/")
        net = self.network.network
        if len(parts) != 3 or parts[0] != net.chain_hash or parts[1] != "public":
            return 404, b'{"error":"unknown"}'
        number = int(parts[2])
        if number > self.latest:
            return 404, b'{"error":"not yet"}'
        if self.mode == "slow":
            time.sleep(self.delay_s)
        if self.mode == "error":
            return 500, b"oops"
        if self.mode == "garbage":
            return 200, b"<html>"
        signed = self.network.sign(number if self.mode != "wrong" else number + 1)
        body: dict[str, Any] = self.network.relay_json(signed)
        body["round"] = number
        return 200, json.dumps(body).encode()


@contextmanager
def serving(*relays: Relay) -> Iterator[list[Relay]]:
    """Each relay on its own port of 127.0.0.1 (its `url` set) while the block runs."""
    servers = []
    for relay in relays:

        class Handler(BaseHTTPRequestHandler):
            owner = relay

            def do_GET(self) -> None:
                status, body = self.owner.answer(self.path)
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a slow relay past its timeout)

            def log_message(self, *args: Any) -> None:
                pass

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        server.daemon_threads = True
        relay.url = f"http://127.0.0.1:{server.server_address[1]}"
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
    try:
        yield list(relays)
    finally:
        for server in servers:
            server.shutdown()
            server.server_close()


def down_url() -> str:
    """A URL where nothing listens (a relay that is down)."""
    import socket

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return f"http://127.0.0.1:{port}"
