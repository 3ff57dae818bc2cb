"""Bots resend an unacknowledged action with the same seq and action."""

from __future__ import annotations

from typing import Any

import pytest

from client_cli import bots
from client_cli.connection import ServerError


class _FlakyConnection:
    def __init__(self, failures: int, code: str = "internal") -> None:
        self.failures, self.code = failures, code
        self.sent: list[dict[str, Any]] = []

    async def call(self, kind: str, **fields: Any) -> dict[str, Any]:
        self.sent.append({"type": kind, **fields})
        if len(self.sent) <= self.failures:
            raise ServerError({"type": "error", "code": self.code, "message": "x"})
        return {"type": "state", "seq": fields["seq"], "duplicate": True}


async def test_internal_is_retried_with_the_same_seq_and_action(monkeypatch) -> None:
    monkeypatch.setattr(bots.asyncio, "sleep", _no_sleep)
    conn = _FlakyConnection(failures=2)
    move = {"kind": "move", "card": "2H", "to": [0, 0]}
    state = await bots.act(conn, 3, 7, move)  # type: ignore[arg-type]
    assert state["seq"] == 7
    assert conn.sent == [{"type": "act", "tournament": 3, "seq": 7, "action": move}] * 3


async def test_other_errors_are_not_retried(monkeypatch) -> None:
    monkeypatch.setattr(bots.asyncio, "sleep", _no_sleep)
    conn = _FlakyConnection(failures=1, code="illegal_action")
    with pytest.raises(ServerError):
        await bots.act(conn, 3, 7, {"kind": "redeal"})  # type: ignore[arg-type]
    assert len(conn.sent) == 1


async def _no_sleep(_seconds: float) -> None:
    return None
