"""A protocol-v1 client: request/reply by id, pushes on a queue, reconnect and re-auth;
with a ReceiptBook, the receipt (seq, log_hash) of every STATE it is answered is noted."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import socket
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus, WebSocketException

from client_cli.config import ReceiptBook
from server import i18n
from server.i18n import terminal
from server.i18n.terminal import t

FLOOD_PAUSES_S = (1.0, 2.0, 4.0)
"""The pauses before a refused message is sent again after the server's "slow down"."""
QUOTA_MAX = {"clubs_owned": 3, "club_events": 5, "codes": 10}  # the contract's, if unsaid


def quota_of(reply: dict[str, Any]) -> str | None:
    """The `limit` of a refusal by quota (PROTOCOL.md v1.4: `rate_limited` naming it), or
    None. Waiting a moment does not lift a quota, so it is said, never sent again."""
    limit = reply.get("limit")
    if reply.get("code") == "rate_limited" and isinstance(limit, str) and limit:
        return limit
    return None


def flood(reply: dict[str, Any]) -> bool:
    """The server's "too many messages: slow down" (rate_limited without `limit`): the
    message changed nothing and may go again after a pause."""
    return (
        reply.get("code") == "rate_limited"
        and quota_of(reply) is None
        and reply.get("reason") == "too_many_messages"
    )


class ServerError(Exception):
    """An error reply: `code` is the protocol's error code; `request` what was refused;
    `quota` the limit of a refusal by quota (else None)."""

    def __init__(self, reply: dict[str, Any], request: dict[str, Any] | None = None) -> None:
        super().__init__(f"{reply.get('code')}: {reply.get('message')}")
        self.code = str(reply.get("code"))
        self.message = str(reply.get("message"))
        self.reply = reply
        self.request = request or {}
        self.quota = quota_of(reply)


def quota_text(exc: ServerError) -> str:
    """A quota in words, in every language (English too): `cli.quota.<reason>` (a limit
    said more precisely), else `cli.quota.<limit>`, else `cli.quota.other`, with the
    reply's params (and, for a handover, the named player's, whose quota it is)."""
    limit = exc.quota or ""
    params: dict[str, Any] = {"max": QUOTA_MAX.get(limit, "?"), "limit": limit}
    given = exc.reply.get("params")
    params.update(given if isinstance(given, dict) else {})
    keys = [f"cli.quota.{exc.reply.get('reason')}", f"cli.quota.{limit}", "cli.quota.other"]
    if exc.request.get("type") == "set_owner":
        keys.insert(0, f"cli.quota.{limit}.theirs")
        params["name"] = exc.request.get("player", "?")
    known = i18n.catalogue(i18n.ENGLISH)
    return t(next(key for key in keys if key in known), **params)


def failure(url: str, exc: BaseException) -> str:
    """One line saying why `url` could not be reached (or was lost), for a person."""
    if isinstance(exc, ConnectionRefusedError):
        why = t("cli.connect.refused")
    elif isinstance(exc, socket.gaierror):
        why = t("cli.connect.unknown_host")
    elif isinstance(exc, TimeoutError):
        why = t("cli.connect.timeout")
    elif isinstance(exc, InvalidStatus):
        why = t("cli.connect.http_status", status=exc.response.status_code)
    elif isinstance(exc, WebSocketException):
        why = t("cli.connect.not_samedeal")
    elif isinstance(exc, ConnectionError | ConnectionClosed):
        why = t("cli.connect.lost")
    else:
        why = (getattr(exc, "strerror", None) or str(exc) or type(exc).__name__)[:120]
    return t("cli.connect.cannot", url=url, why=why)


def server_error_line(exc: ServerError) -> str:
    """A refusal of the server in one line for a person: a quota as such (`quota_text`);
    else in English its code and its own message (as detailed as the server says it), in
    another language the catalogue's sentence for its `reason` (the English message when
    the reason is not known here)."""
    if exc.quota is not None:
        return quota_text(exc)
    if terminal.lang() == i18n.ENGLISH:
        return f"{exc.code}: {exc.message}"
    return terminal.error_text(exc.reply)


class Connection:
    """One logical connection to a server. Reconnects (and re-authenticates) by itself."""

    def __init__(self, url: str, token: str | None = None, retries: int = 10) -> None:
        self.url = url
        self.token = token
        self.retries = retries
        self.pushes: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self._ws: ClientConnection | None = None
        self._ids = itertools.count(1)
        self._waiting: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._reader: asyncio.Task[None] | None = None
        self._lock = asyncio.Lock()
        self.reconnects = 0
        self.player: dict[str, Any] | None = None  # from the last successful auth
        self.frames: list[str] | None = None  # set to a list to keep every frame received
        self.receipts: ReceiptBook | None = None  # set to keep the receipts of STATEs

    async def __aenter__(self) -> Connection:
        await self.connect()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def connect(self) -> None:
        delay = 0.1
        for attempt in range(self.retries + 1):
            try:
                self._ws = await connect(self.url, max_size=None, open_timeout=5)
                break
            except (TimeoutError, OSError):
                if attempt == self.retries:
                    raise
                await asyncio.sleep(delay)
                delay = min(2.0, delay * 2)
        assert self._ws is not None  # connect() returned or raised above
        self._reader = asyncio.get_running_loop().create_task(self._read(self._ws))
        if self.token is not None:
            reply = await self.request({"type": "auth", "token": self.token}, reconnect=False)
            self.player = reply["player"]

    async def close(self) -> None:
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._reader
        if self._ws is not None:
            await self._ws.close()

    async def _read(self, ws: ClientConnection) -> None:
        try:
            async for raw in ws:
                if self.frames is not None:
                    self.frames.append(str(raw))
                msg = json.loads(raw)
                fut = self._waiting.pop(msg["re"], None) if "re" in msg else None
                if fut is not None and not fut.done():
                    fut.set_result(msg)
                elif "re" not in msg:
                    self.pushes.put_nowait(msg)
        except ConnectionClosed:
            pass
        finally:
            for fut in self._waiting.values():
                if not fut.done():
                    fut.set_exception(ConnectionError("connection lost"))
            self._waiting.clear()

    async def request(self, msg: dict[str, Any], reconnect: bool = True) -> dict[str, Any]:
        """Send and wait for the reply; raise ServerError on an error reply. After a lost
        connection it reconnects once and sends again (acts are idempotent by seq)."""
        for attempt in (1, 2):
            try:
                reply = await self._send_patiently(msg)
                if self.receipts is not None:
                    self._keep_receipt(reply)
                return reply
            except (ConnectionError, ConnectionClosed):
                if not reconnect or attempt == 2:
                    raise
                async with self._lock:
                    self.reconnects += 1
                    await self.connect()
        raise AssertionError("unreachable")

    def _keep_receipt(self, reply: dict[str, Any]) -> None:
        """Note a STATE's receipt for the player this connection is (`player`)."""
        assert self.receipts is not None
        seq, digest, tid = reply.get("seq"), reply.get("log_hash"), reply.get("tournament")
        if (
            reply.get("type") == "state"
            and self.player is not None
            and isinstance(seq, int)
            and isinstance(tid, int)
            and isinstance(digest, str)
        ):
            self.receipts.note(self.url, str(self.player["name"]), tid, seq, digest)

    async def _send_patiently(self, msg: dict[str, Any]) -> dict[str, Any]:
        """`_send`, and again after a pause when the server says "slow down" (never
        after a quota: `quota_of`)."""
        for pause in FLOOD_PAUSES_S:
            try:
                return await self._send(msg)
            except ServerError as exc:
                if not flood(exc.reply):
                    raise
            await asyncio.sleep(pause)
        return await self._send(msg)

    async def _send(self, msg: dict[str, Any]) -> dict[str, Any]:
        if self._ws is None:
            raise ConnectionError("not connected")
        msg_id = next(self._ids)
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiting[msg_id] = fut
        await self._ws.send(json.dumps({**msg, "id": msg_id}))
        reply = await fut
        if reply.get("type") == "error":
            raise ServerError(reply, msg)
        return reply

    async def call(self, type_: str, **fields: Any) -> dict[str, Any]:
        return await self.request({"type": type_, **fields})
