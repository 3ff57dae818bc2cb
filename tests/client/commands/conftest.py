"""A stand-in for client_cli.connection.Connection in the commands' own tests: each
message type answered from a script, every message sent kept (`Scripted.sent`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from client_cli.connection import ServerError

URL = "ws://127.0.0.1:9/ws"


class Scripted:
    """Answers `replies[type]` (a callable gets the message; an error reply is raised as
    the real Connection raises it); an unscripted type fails the test."""

    def __init__(self, replies: dict[str, Any]) -> None:
        self.replies = replies
        self.sent: list[dict[str, Any]] = []
        self.opened: list[str] = []

    def __call__(self, url: str, token: str | None = None, retries: int = 10) -> Scripted:
        self.opened.append(url)
        self.url, self.token, self.player = url, token, None
        return self

    async def __aenter__(self) -> Scripted:
        return self

    async def __aexit__(self, *exc: object) -> None:
        return None

    async def request(self, msg: dict[str, Any], reconnect: bool = True) -> dict[str, Any]:
        self.sent.append(msg)
        reply = self.replies[msg["type"]]
        reply = reply(msg) if callable(reply) else reply
        if reply.get("type") == "error":
            raise ServerError(reply, msg)
        return dict(reply)

    async def call(self, type_: str, **fields: Any) -> dict[str, Any]:
        return await self.request({"type": type_, **fields})

    def of(self, type_: str) -> list[dict[str, Any]]:
        return [m for m in self.sent if m["type"] == type_]


@pytest.fixture
def scripted(monkeypatch: pytest.MonkeyPatch) -> Callable[..., Scripted]:
    """`scripted(replies, *modules)`: a Scripted connection standing in for `Connection`
    in client_cli.commands.common (authed, maybe_authed) and in each of `modules`."""
    from client_cli.commands import common

    def install(replies: dict[str, Any], *modules: Any) -> Scripted:
        conn = Scripted({"auth": {"type": "authed", "player": {"name": "ann"}}, **replies})
        for module in (common, *modules):
            monkeypatch.setattr(module, "Connection", conn)
        return conn

    return install
