"""client_cli/connection.py: request and reply by id, pushes on their queue, an error
reply raised with what it refused, "slow down" sent again but a quota never, a STATE's
receipt noted, one line for a person on a failure, and a reconnect after a lost server
(a stand-in websockets server in this process; the last test a real server process)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.server import ServerConnection, serve

from client_cli import connection
from client_cli.config import ReceiptBook
from client_cli.connection import (
    Connection,
    ServerError,
    failure,
    flood,
    quota_of,
    server_error_line,
)
from server.i18n import terminal
from server.i18n.terminal import t
from tests.support.processes import Killable, free_port

Answer = Callable[[dict[str, Any]], list[dict[str, Any]]]
"""What the stand-in server sends for a message it receives (its `id` already in it)."""


@pytest.fixture
async def stand_in() -> AsyncIterator[Callable[[Answer], Any]]:
    """Start a websockets server in this process answering with `answer`; its ws URL."""
    servers: list[Any] = []

    async def start(answer: Answer) -> str:
        async def handler(ws: ServerConnection) -> None:
            async for raw in ws:
                for frame in answer(json.loads(raw)):
                    await ws.send(json.dumps(frame))

        server = await serve(handler, "127.0.0.1", 0)
        servers.append(server)
        port = next(iter(server.sockets)).getsockname()[1]
        return f"ws://127.0.0.1:{port}/ws"

    yield start
    for server in servers:
        server.close()
        await server.wait_closed()


def slow_down() -> dict[str, Any]:
    return {"type": "error", "code": "rate_limited", "reason": "too_many_messages"}


def test_a_quota_names_its_limit_and_a_flood_has_none() -> None:
    quota = {"code": "rate_limited", "limit": "clubs_owned", "reason": "clubs_owned"}
    assert quota_of(quota) == "clubs_owned" and not flood(quota)
    assert quota_of(slow_down()) is None and flood(slow_down())
    assert quota_of({"code": "bad_request", "limit": "x"}) is None
    assert not flood({"code": "rate_limited", "reason": "other"})


def test_a_refusal_in_one_line() -> None:
    refused = ServerError({"code": "not_found", "message": "no tournament 9"}, {"type": "x"})
    assert (refused.code, refused.request, refused.quota) == ("not_found", {"type": "x"}, None)
    assert server_error_line(refused) == "not_found: no tournament 9"
    quota = ServerError({"code": "rate_limited", "limit": "codes", "message": "m"})
    assert server_error_line(quota) == connection.quota_text(quota) != "rate_limited: m"


def test_a_failure_names_the_server_and_why() -> None:
    url = "ws://example.invalid/ws"
    assert failure(url, ConnectionRefusedError()) == t(
        "cli.connect.cannot", url=url, why=t("cli.connect.refused")
    )
    assert t("cli.connect.timeout") in failure(url, TimeoutError())
    assert "disk on fire" in failure(url, OSError(5, "disk on fire"))


async def test_replies_find_their_request_and_pushes_their_queue(stand_in) -> None:
    def answer(msg: dict[str, Any]) -> list[dict[str, Any]]:
        push = {"type": "standings", "tournament": 1}
        return [push, {"type": "pong", "re": msg["id"], "echo": msg["n"]}]

    async with Connection(await stand_in(answer)) as conn:
        replies = await asyncio.gather(*(conn.call("ping", n=n) for n in range(3)))
        assert [r["echo"] for r in replies] == [0, 1, 2]
        assert conn.pushes.qsize() == 3 and (await conn.pushes.get())["type"] == "standings"


async def test_an_error_reply_is_raised_with_what_it_refused(stand_in) -> None:
    def answer(msg: dict[str, Any]) -> list[dict[str, Any]]:
        return [{"type": "error", "re": msg["id"], "code": "forbidden", "message": "no"}]

    async with Connection(await stand_in(answer)) as conn:
        with pytest.raises(ServerError) as refused:
            await conn.call("close_tournament", tournament=4)
    assert refused.value.code == "forbidden"
    assert refused.value.request == {"type": "close_tournament", "tournament": 4}


async def test_slow_down_is_sent_again_a_quota_never(stand_in, monkeypatch) -> None:
    monkeypatch.setattr(connection, "FLOOD_PAUSES_S", (0.0, 0.0, 0.0))
    received: list[str] = []

    def answer(msg: dict[str, Any]) -> list[dict[str, Any]]:
        received.append(msg["type"])
        if msg["type"] == "quota":
            return [{"type": "error", "re": msg["id"], "code": "rate_limited", "limit": "codes"}]
        if received.count("busy") < 3:
            return [{**slow_down(), "re": msg["id"]}]
        return [{"type": "ok", "re": msg["id"]}]

    async with Connection(await stand_in(answer)) as conn:
        assert (await conn.call("busy"))["type"] == "ok"
        with pytest.raises(ServerError) as refused:
            await conn.call("quota")
    assert received == ["busy", "busy", "busy", "quota"] and refused.value.quota == "codes"


async def test_a_states_receipt_is_noted_for_the_signed_in_player(stand_in, tmp_path: Path) -> None:
    def answer(msg: dict[str, Any]) -> list[dict[str, Any]]:
        if msg["type"] == "auth":
            return [{"type": "authed", "re": msg["id"], "player": {"name": "ann"}}]
        state = {"type": "state", "tournament": 7, "seq": msg["seq"], "log_hash": "ab" * 32}
        return [{**state, "re": msg["id"]}]

    url = await stand_in(answer)
    async with Connection(url, token="tok") as conn:
        conn.receipts = ReceiptBook(tmp_path / "receipts.json")
        await conn.call("act", seq=5)
        await conn.call("act", seq=4)  # a stale answer keeps the higher one
    assert conn.player == {"name": "ann"}
    kept = conn.receipts.get(url, "ann", 7)
    assert kept is not None and (kept.seq, kept.log_hash) == (5, "ab" * 32)


async def test_a_lost_connection_fails_the_waiting_request(stand_in) -> None:
    def answer(msg: dict[str, Any]) -> list[dict[str, Any]]:
        raise ConnectionError  # the handler ends: the server closes the connection

    async with Connection(await stand_in(answer), retries=0) as conn:
        with pytest.raises(ConnectionError):
            await conn.request({"type": "ping"}, reconnect=False)


def test_a_refusal_in_another_language_is_the_catalogues() -> None:
    reply = {"code": "conflict", "reason": "act_not_acknowledged", "message": "English"}
    terminal.choose("es")
    try:
        line, said = server_error_line(ServerError(reply)), t("reason.act_not_acknowledged")
        unknown = server_error_line(ServerError({**reply, "reason": "no_such_reason"}))
    finally:
        terminal.choose("en")
    assert line == said != t("reason.act_not_acknowledged") and unknown == "English"


async def test_connection_reconnects_and_resumes(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'rc.db'}"
    port = free_port()
    server = Killable(url, port, tmp_path / "rc.log")
    await asyncio.to_thread(server.start)
    try:
        conn = Connection(f"ws://127.0.0.1:{port}/ws")
        async with conn:
            token = (await conn.call("register", name="phoenix"))["token"]
            conn.token = token
            tid = (await conn.call("tournaments"))["items"]
            assert tid == []
            await asyncio.to_thread(server.kill)
            await asyncio.to_thread(server.start)
            again = await conn.call("tournaments")  # reconnects and re-authenticates
            assert again["type"] == "tournaments" and conn.reconnects == 1
    finally:
        server.stop()
