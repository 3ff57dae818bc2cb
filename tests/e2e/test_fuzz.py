"""Protocol fuzzing: random and mutated messages against a live server.

Every frame gets a well-formed error (or a clean close for oversize/abuse), the
server logs no unhandled exception, and nothing changes for anybody.
SAMEDEAL_FUZZ_EXAMPLES raises the number of examples (default 300).
"""

from __future__ import annotations

import json
import logging
import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.net import session as session_mod
from server.net.protocol import ERROR_CODES
from tests.e2e.test_tournament import create_msg
from tests.support.harness import running_server

EXAMPLES = int(os.environ.get("SAMEDEAL_FUZZ_EXAMPLES", "300"))

json_leaf = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=False),
    st.text(max_size=40),
    st.sampled_from(["2S", "10H", "ZZ", "t7", "fX", "waste", ""]),
)
json_value = st.recursive(
    json_leaf,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
TYPES = [
    "register",
    "auth",
    "tournaments",
    "create_tournament",
    "close_tournament",
    "join",
    "state",
    "act",
    "hint",
    "subscribe",
    "unsubscribe",
    "record",
    "ping",
    "fly",
    3,
    None,
]
KINDS = ["move", "redeal", "resign", "draw", "auto", "fly", None, 7]


@st.composite
def mutated(draw) -> str:
    """A message near a real one: a real type with wrong, missing or extra fields."""
    msg = {
        "type": draw(st.sampled_from(TYPES)),
        "tournament": draw(st.one_of(st.integers(-5, 5), st.integers(2**31, 2**80), json_value)),
        "seq": draw(st.one_of(st.integers(-3, 0), st.integers(50, 10**30), json_value)),
        "action": draw(
            st.one_of(
                json_value,
                st.fixed_dictionaries(
                    {
                        "kind": st.sampled_from(KINDS),
                        "card": json_leaf,
                        "to": st.one_of(st.lists(st.integers(-5, 20), max_size=3), json_value),
                    }
                ),
            )
        ),
    }
    for key in draw(st.lists(st.sampled_from(list(msg)), max_size=3)):
        msg.pop(key, None)
    if draw(st.booleans()):
        msg[draw(st.text(min_size=1, max_size=6))] = draw(json_value)
    if draw(st.booleans()):
        msg["id"] = draw(json_value)
    return json.dumps(msg)


frames = st.one_of(
    mutated(),
    json_value.map(json.dumps),
    st.text(max_size=200),
    st.integers(1, 3000).map(lambda n: "[" * n + "]" * n),
    st.just('{"type": "act", "seq": 1e400}'),
    st.just('{"type": "ping", "id": 123456789012345678901234567890}'),
)


def quiet_error(reply: dict) -> bool:
    return (
        reply.get("type") == "error"
        and reply.get("code") in ERROR_CODES
        and isinstance(reply.get("message"), str)
    )


async def test_fuzzed_frames_get_errors_and_change_nothing(sqlite_url, caplog, monkeypatch) -> None:
    caplog.set_level(logging.ERROR)
    monkeypatch.setattr(session_mod, "RATE_BURST", 1e9)  # the rate limit has its own test
    monkeypatch.setattr(session_mod, "RATE_PER_S", 1e9)
    async with running_server(sqlite_url) as srv:
        op = await srv.admin()
        tid = (await op.ok(**create_msg()))["tournament"]["id"]
        async with srv.client() as c:
            await c.ok(type="register", name="fuzzer")
            before = await c.ok(type="join", tournament=tid)
            seen: list[str] = []

            @settings(
                max_examples=EXAMPLES,
                deadline=None,
                derandomize=True,
                suppress_health_check=list(HealthCheck),
            )
            @given(frame=frames)
            def check(frame: str) -> None:
                seen.append(frame)

            check()
            replies = 0
            for frame in seen:
                if len(frame.encode()) > 60_000:
                    continue
                await c.ws.send(frame)
                reply = await c.recv()
                replies += 1
                allowed = {"pong", "tournaments", "state", "standings", "unsubscribed"}
                assert quiet_error(reply) or reply["type"] in allowed, (frame, reply)
            for raw in (b"\xff\xfe\x00", b"\x80abc", b'{"type":"ping"}'):
                reply = await c.send_raw(raw)
                assert reply["code"] == "bad_request"
            after = await c.ok(type="state", tournament=tid)
            assert after["seq"] == before["seq"] and after["view"] == before["view"]
        assert replies >= EXAMPLES // 2
        print(f"\nfigures: {replies + 3} fuzzed frames answered, none changed anything")
        assert len(srv.app.competition.catalogue.known()) == 1
        await op.close()
    unhandled = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert not unhandled, [r.getMessage() for r in unhandled]
