"""Fuzz target: the protocol's message parsing, `Session.handle` on raw frames.

One input is up to 8 frames, split at 0x1e (record separator); a frame starting with
0x00 is binary; one starting with 0x01 is a message built from the bytes that follow
(a type, then fields of the protocol's names with values of any shape: deep, long, huge
numbers; common.json_text); any other is text decoded as the transport decodes it (bad
bytes as lone surrogates). The session's competition is a stub: registering works, everything else
is refused with a CompetitionError, standings answer an empty window. The promise
(PROTOCOL.md): every frame gets one reply, an error with a known code (never `internal`:
with this stub, that would be a bug in the session) and a text message, or a reply of
a known type; the reply is what the transport can send (orjson).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import orjson

from tests.fuzz.common import Reader, fuzz, instrumented, json_text

with instrumented(__name__ == "__main__"):
    from server.competition.errors import CompetitionError
    from server.competition.ratings import LeaderboardPage
    from server.competition.standings.reading import View
    from server.domain.accounts import DeviceInfo, DeviceKind
    from server.domain.club_events import Viewer
    from server.domain.model import PlayerInfo
    from server.net import protocol, session
    from server.net.metrics import Metrics

NOW = datetime(2026, 12, 1, tzinfo=UTC)  # the stub competition's clock (pong's server_time)
REPLY_TYPES = {
    "pong", "registered", "authed", "tournaments", "tournament", "state", "hint",
    "standings", "unsubscribed", "record", "leaderboard", "player", "schedules",
    "devices", "devices_revoked", "passkeys", "signed_out",  # v1.4 accounts
    "club", "clubs",  # v1.4 clubs
}  # fmt: skip


def _refuse(code: str) -> Any:
    async def refuse(*_: Any) -> Any:
        raise CompetitionError(code, f"stub: {code}")

    return refuse


class _Parts:
    def __init__(self, **methods: Any) -> None:
        self.__dict__.update(methods)


class _Refusing:
    """A part whose every verb is refused with `code`."""

    def __init__(self, code: str) -> None:
        self.code = code

    def __getattr__(self, verb: str) -> Any:
        return _refuse(self.code)


async def _register(name: str) -> tuple[PlayerInfo, str]:
    return PlayerInfo(1, name, False), "token"


async def _register_device(name: str, *_: Any) -> tuple[PlayerInfo, DeviceInfo, str]:
    device = DeviceInfo(1, 1, DeviceKind.TOKEN, None, NOW, NOW)
    return PlayerInfo(1, name, False), device, "token"


async def _window(*_: Any) -> View:
    return View([], 0, 1, False, 0)


def _not_found(*_: Any) -> Any:
    raise CompetitionError("not_found", "stub: no such tournament")


COMPETITION: Any = _Parts(
    players=_Parts(
        register=_register,
        register_bot=_register,
        authenticate=_refuse("unauthorized"),
        now=lambda: NOW,
    ),
    catalogue=_Parts(
        summaries=lambda: asyncio.sleep(0, []),
        get=_not_found,
        find=_refuse("not_found"),
        create=_refuse("forbidden"),
        revealed_seed=_refuse("not_found"),
    ),
    lifecycle=_Refusing("forbidden"),
    fairplay=_Refusing("forbidden"),
    bundles=_Refusing("not_revealed"),
    play=_Parts(
        join=_refuse("not_open"),
        state=_refuse("not_found"),
        act=_refuse("illegal_action"),
        hint=_refuse("forbidden"),
    ),
    standings=_Parts(window=_window, page=_window),
    exports=_Refusing("not_revealed"),
    ratings=_Parts(
        leaderboard=lambda *_: asyncio.sleep(0, LeaderboardPage("gaps", 0, 0, [])),
        player=_refuse("not_found"),
    ),
    schedules=_Parts(
        all=lambda *_: asyncio.sleep(0, []),
        listing=lambda *_: asyncio.sleep(0, []),
        get=_refuse("not_found"),
        create=_refuse("forbidden"),
        cancel=_refuse("forbidden"),
    ),
    club_events=_Parts(  # v1.4 clubs: nobody is a member of any club; club events refused
        viewer=lambda *_: asyncio.sleep(0, Viewer()),
        fields=_refuse("forbidden"),
    ),
    clubs=_Refusing("not_found"),
    devices=_Parts(  # v1.4 accounts: a device per registration; the rest refused
        register=_register_device,
        authenticate=_refuse("unauthorized"),
        attach=lambda *_: None,
        hold=lambda *_: asyncio.sleep(0, True),
        forget=lambda *_: None,
        listed=lambda *_: asyncio.sleep(0, []),
        revoke=_refuse("not_found"),
        revoke_others=lambda *_: asyncio.sleep(0, 0),
    ),
    links=_Parts(
        start=_refuse("rate_limited"),
        approve=_refuse("not_found"),
        describe=_refuse("not_found"),
        poll=_refuse("not_found"),
        ttl_s=600,
    ),
    accounts=_Parts(delete=_refuse("bad_request")),
    passkeys=_Parts(
        register_options=_refuse("bad_request"),
        login_options=_refuse("bad_request"),
        register=_refuse("unauthorized"),
        login=_refuse("unauthorized"),
        listed=lambda *_: asyncio.sleep(0, []),
        remove=_refuse("not_found"),
    ),
)
FANOUT: Any = _Parts(
    subscribe=lambda *_: None, unsubscribe=lambda *_: None, watching=lambda *_: False
)
METRICS = Metrics()
LOOP = asyncio.new_event_loop()


TYPES = [*sorted(protocol.MESSAGE_TYPES), "fly", ""]
FIELDS = [
    "id", "type", "name", "token", "tournament", "seq", "action", "top", "around", "offset",
    "limit", "player", "game", "options", "starts_at", "ends_at", "time_limit_s",
    "join_until", "kind", "card", "to", "from", "count",
]  # fmt: skip
WORDS = TYPES + FIELDS + ["move", "redeal", "resign", "draw", "2S", "KD", "t0", "waste"]


def message(r: Reader) -> str:
    """A message object's text: mostly a real type, then fields of any shape."""
    kind = json.dumps(r.pick(TYPES)) if r.byte() % 4 else json_text(r, WORDS)
    fields = [f'"type":{kind}']
    for _ in range(r.byte() % 6):
        fields.append(f"{json.dumps(r.pick(FIELDS))}:{json_text(r, WORDS)}")
    return "{" + ",".join(fields) + "}"


def frames(data: bytes) -> list[str | bytes]:
    out: list[str | bytes] = []
    for chunk in data.split(b"\x1e")[:8]:
        if chunk[:1] == b"\x00":
            out.append(chunk[1:])
        elif chunk[:1] == b"\x01":
            out.append(message(Reader(chunk[1:])))
        else:
            out.append(chunk.decode("utf-8", "surrogateescape"))
    return out


def one_input(data: bytes) -> None:
    s = session.Session(COMPETITION, FANOUT, METRICS, conn=None)
    for frame in frames(data):
        reply = LOOP.run_until_complete(s.handle(frame))
        assert isinstance(reply, dict), reply
        orjson.dumps(reply)  # what the transport sends
        if reply["type"] == "error":
            assert reply["code"] in protocol.ERROR_CODES and reply["code"] != "internal", reply
            assert isinstance(reply["message"], str), reply
        else:
            assert reply["type"] in REPLY_TYPES, reply


def seeds() -> Iterator[bytes]:
    """Every message type as the protocol writes it, alone and after a register."""
    messages = [
        {"type": "ping", "id": 1},
        {"type": "register", "name": "alice"},
        {"type": "auth", "token": "x" * 43},
        {"type": "tournaments", "id": "a"},
        {"type": "create_tournament", "name": "Friday", "game": "gaps",
         "options": {"redeals": 2}, "starts_at": "2026-11-30T18:00:00Z",
         "ends_at": "2026-11-30T19:00:00Z", "time_limit_s": 900},
        {"type": "close_tournament", "tournament": 1},
        {"type": "join", "tournament": 1},
        {"type": "state", "tournament": 1},
        {"type": "act", "tournament": 1, "seq": 1,
         "action": {"kind": "move", "card": "2S", "to": [0, 0]}},
        {"type": "hint", "tournament": 1},
        {"type": "subscribe", "tournament": 1, "top": 10, "around": 2},
        {"type": "standings_page", "tournament": 1, "offset": 0, "limit": 50},
        {"type": "unsubscribe", "tournament": 1},
        {"type": "record", "tournament": 1, "player": "alice"},
    ]  # fmt: skip
    register = orjson.dumps(messages[1])
    for m in messages:
        yield orjson.dumps(m)
        yield register + b"\x1e" + orjson.dumps(m)
    yield b"\x00\xff\xfe" + b"\x1e" + b'{"type":"ping"}'
    yield b"\x01\x01\x07\x01\x05\x00\x02"  # built: a register with its name, and more
    yield b'{"type": "act", "seq": 1e400}'


TOKENS = [
    "type", "id", "register", "auth", "tournaments", "create_tournament", "close_tournament",
    "join", "state", "act", "hint", "subscribe", "standings_page", "unsubscribe", "record",
    "ping", "name", "token", "tournament", "seq", "action", "kind", "move", "card", "to",
    "top", "around", "offset", "limit", "player", "game", "options", "starts_at", "ends_at",
    "time_limit_s", "join_until", "null", "true", "2147483648", "9007199254740993",
    "1e400", "[[[[[[[[[[", "]]]]]]]]]]", "\x1e", "\\ud800", "\xff",
]  # fmt: skip

if __name__ == "__main__":
    fuzz(one_input)
