"""Protocol fuzzing: random and mutated messages against a live server.

Every frame gets a well-formed error (or a clean close for oversize/abuse), the
server logs no unhandled exception, and nothing changes for anybody.
SAMEDEAL_FUZZ_EXAMPLES raises the number of hypothesis examples (default 300).

The soak (`test_a_soak_of_random_frames`) sends frames from a plain seeded generator,
fast enough for a million: SAMEDEAL_FUZZ_FRAMES sets the count (default 3,000), e.g.

    SAMEDEAL_FUZZ_FRAMES=1000000 .venv/bin/pytest tests/e2e/test_fuzz.py -k soak -s

and prints its figures (docs/RELIABILITY.md): frames, time, answers by type and code.
"""

from __future__ import annotations

import asyncio
import collections
import json
import logging
import os
import random
import time
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.net import session as session_mod
from server.net.protocol import ERROR_CODES
from tests.support.harness import create_msg, running_server

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


# -- the soak: a million frames -------------------------------------------------------
FRAMES = int(os.environ.get("SAMEDEAL_FUZZ_FRAMES", "3000"))
WINDOW = 16  # frames in flight: the server reads on while it answers (its queue is 32)
ALLOWED = {"pong", "tournaments", "state", "standings", "unsubscribed"}
TOKENS = [
    "{",
    "}",
    "[",
    "]",
    ",",
    ":",
    '"',
    "\\",
    "null",
    "true",
    "1e999",
    "-",
    "0",
    "-0.0",
    '"type"',
    '"act"',
    '"seq"',
    "9" * 40,
    "\\ud800",
    "\\u0000",
]


def leaf(rnd: random.Random) -> Any:
    pick = rnd.randrange(9)
    if pick == 0:
        return rnd.choice([None, True, False])
    if pick == 1:
        return rnd.randint(-5, 60)
    if pick == 2:
        return rnd.choice([2**31, 2**53, 2**63, 2**64, 2**70, -(2**70), 10**30, 10**300])
    if pick == 3:
        return rnd.choice([0.5, -0.0, 1e308, -1e-308, 3.0, 1.5e10])
    if pick in (4, 5):
        return rnd.choice(["2S", "10H", "KD", "AC", "ZZ", "t7", "f0", "fX", "waste", "stock", ""])
    if pick == 6:
        return rnd.choice(["move", "redeal", "resign", "draw", "auto", "fly", "ping", "act"])
    n = rnd.randrange(12)
    return "".join(
        chr(rnd.choice([rnd.randrange(32, 127), rnd.randrange(0, 0xD800)])) for _ in range(n)
    )


def value(rnd: random.Random, depth: int = 0) -> Any:
    if depth > 3 or rnd.random() < 0.55:
        return leaf(rnd)
    if rnd.random() < 0.5:
        return [value(rnd, depth + 1) for _ in range(rnd.randrange(4))]
    return {str(leaf(rnd)): value(rnd, depth + 1) for _ in range(rnd.randrange(4))}


def message(rnd: random.Random, tid: int) -> dict[str, Any]:
    """Near a real message: a real type with wrong, missing or extra fields."""
    msg: dict[str, Any] = {
        "type": rnd.choice(TYPES),
        "tournament": rnd.choice([tid, tid, tid + 1, 0, -1, 2**31, value(rnd)]),
        "seq": rnd.choice([rnd.randint(-3, 0), rnd.randint(2, 60), 10**30, value(rnd)]),
        "action": rnd.choice(
            [
                value(rnd),
                {
                    "kind": rnd.choice(KINDS),
                    "card": leaf(rnd),
                    "to": rnd.choice(
                        [[rnd.randint(-5, 20) for _ in range(rnd.randrange(4))], value(rnd)]
                    ),
                },
            ]
        ),
    }
    for key in rnd.sample(list(msg), rnd.randrange(3)):
        del msg[key]
    for _ in range(rnd.randrange(3)):
        msg[str(leaf(rnd))] = value(rnd)
    if rnd.random() < 0.5:
        msg["id"] = rnd.choice([rnd.randrange(10**6), "x" * rnd.randrange(200), value(rnd)])
    return msg


def mutate(rnd: random.Random, text: str) -> str:
    chars = list(text)
    for _ in range(rnd.randrange(1, 5)):
        at = rnd.randrange(len(chars) + 1)
        pick = rnd.randrange(4)
        if pick == 0 and chars:
            del chars[at : at + rnd.randrange(1, 6)]
        elif pick == 1:
            chars[at:at] = rnd.choice(TOKENS)
        elif pick == 2 and chars:
            chars[at : at + 1] = chr(rnd.randrange(32, 0x2FF))
        else:
            chars[at:at] = chars[at : at + rnd.randrange(1, 20)]
    return "".join(chars)


CARDS = [r + s for r in ["A", "2", "5", "10", "J", "Q", "K"] for s in "SHDC"]
NEAR_TYPES = ["act"] * 6 + [
    "state", "join", "hint", "subscribe", "unsubscribe", "record", "tournaments", "ping",
    "close_tournament", "create_tournament", "auth",
]  # fmt: skip


def near_valid(rnd: random.Random, tid: int) -> dict[str, Any]:
    """A well-formed message, its values sometimes off: these reach the competition."""
    kind = rnd.choice(NEAR_TYPES)
    msg: dict[str, Any] = {"type": kind, "id": rnd.randrange(10**6)}
    if kind not in ("ping", "tournaments", "auth", "create_tournament"):
        msg["tournament"] = rnd.choice([tid, tid, tid, tid + 1, 2**31 - 1])
    if kind == "act":
        msg["seq"] = rnd.choice([1, 1, 2, 3, 50, 2**31 - 1])
        action: dict[str, Any] = {"kind": rnd.choice(["move"] * 4 + list(KINDS[1:6]))}
        if action["kind"] == "move":
            action["card"] = rnd.choice(CARDS)
            action["to"] = [rnd.randrange(-1, 5), rnd.randrange(-1, 14)]
        msg["action"] = action
    elif kind == "record":
        msg["player"] = rnd.choice(["soaker", "op", "nobody"])
    elif kind == "auth":
        msg["token"] = rnd.choice(["", "x" * 43, "not a token"])
    elif kind == "create_tournament":
        msg.update(create_msg(name=rnd.choice(["x", "Fuzz"]), game=rnd.choice(["gaps", "fly"])))
    return msg


def random_frame(rnd: random.Random, tid: int) -> str | bytes:
    pick = rnd.random()
    if pick < 0.25:
        return json.dumps(near_valid(rnd, tid))
    if pick < 0.45:
        return json.dumps(message(rnd, tid))
    if pick < 0.60:
        return json.dumps(value(rnd))
    if pick < 0.75:
        return mutate(rnd, json.dumps(rnd.choice([near_valid, message])(rnd, tid)))
    if pick < 0.82:
        return "".join(chr(rnd.randrange(1, 0xD800)) for _ in range(rnd.randrange(40)))
    if pick < 0.88:
        n = rnd.randrange(1, 3000)
        return rnd.choice(["[" * n + "]" * n, '{"a":' * n + "1" + "}" * n, "[" * n])
    if pick < 0.95:
        return rnd.choice(
            [
                f'{{"type": "act", "tournament": {tid}, "seq": {"9" * 5000}, "action": {{}}}}',
                '{"type": "act", "seq": 1e400}',
                '{"type": "ping", "id": NaN}',
                '{"type": "ping", "type": "act"}',
                '{"type": "ping", "id": -0}',
                f'{{"type": "state", "tournament": {tid}.0}}',
            ]
        )
    return rnd.randbytes(rnd.randrange(30))


def harmless(frame: str | bytes) -> bool:
    """Leaves out the frames that could rightly change something: an act at the next
    seq (1) that might be legal, a register that names a new player. An act at seq 1
    is kept when it cannot be legal in Gaps: an unknown kind, or a king or an ace to
    place (nothing follows a king; aces are out of the game)."""
    try:
        msg = json.loads(frame)
    except (ValueError, RecursionError):
        return True
    if not isinstance(msg, dict):
        return True
    if msg.get("type") == "register":
        return not isinstance(msg.get("name"), str)
    if msg.get("type") != "act" or msg.get("seq") != 1 or type(msg.get("seq")) is not int:
        return True
    action = msg.get("action")
    if not isinstance(action, dict):
        return True
    kind, card = action.get("kind"), action.get("card")
    if kind in ("redeal", "resign"):
        return False
    return kind != "move" or (isinstance(card, str) and card[:1] in ("K", "A"))


async def test_a_soak_of_random_frames(sqlite_url, caplog, monkeypatch) -> None:
    """FRAMES frames, WINDOW at a time over one connection: every one answered in order
    with an error of a known code or a harmless reply, the connection never closed,
    nothing changed, nothing logged as an error."""
    caplog.set_level(logging.ERROR)
    monkeypatch.setattr(session_mod, "RATE_BURST", 1e9)  # the rate limit has its own test
    monkeypatch.setattr(session_mod, "RATE_PER_S", 1e9)
    rnd = random.Random(20261130)
    answers: collections.Counter[str] = collections.Counter()
    async with running_server(sqlite_url) as srv:
        op = await srv.admin()
        tid = (await op.ok(**create_msg()))["tournament"]["id"]
        async with srv.client() as c:
            await c.ok(type="register", name="soaker")
            before = await c.ok(type="join", tournament=tid)
            started = time.perf_counter()
            sent = 0
            while sent < FRAMES:
                batch = []
                while len(batch) < min(WINDOW, FRAMES - sent):
                    frame = random_frame(rnd, tid)
                    if harmless(frame):
                        batch.append(frame)
                for frame in batch:
                    await c.ws.send(frame)
                for frame in batch:
                    reply = json.loads(await asyncio.wait_for(c.ws.recv(), 30))
                    if "re" not in reply and reply.get("type") == "standings":
                        reply = json.loads(await asyncio.wait_for(c.ws.recv(), 30))  # a push
                    kind = reply.get("type")
                    assert quiet_error(reply) or kind in ALLOWED, (frame, reply)
                    answers[reply["code"] if kind == "error" else kind] += 1
                sent += len(batch)
            seconds = time.perf_counter() - started
            after = await c.ok(type="state", tournament=tid)
            assert after["seq"] == before["seq"] == 0 and after["view"] == before["view"]
            await c.ok(type="ping")  # still open
        assert len(srv.app.competition.catalogue.known()) == 1
        await op.close()
    unhandled = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert not unhandled, [r.getMessage() for r in unhandled]
    assert sum(answers.values()) == FRAMES
    by_code = ", ".join(f"{k} {v:,}" for k, v in answers.most_common())
    print(
        f"\nfigures: {FRAMES:,} frames in {seconds:.0f} s ({FRAMES / seconds:,.0f}/s), "
        f"all answered, connection open, nothing changed, nothing logged; answers: {by_code}"
    )


async def test_a_type_nested_1000_deep_is_a_bad_request(sqlite_url, caplog) -> None:
    """Found by the protocol fuzz target (tests/fuzz/regressions/protocol/): the frame is
    2 KB, JSON, within orjson's 1024 levels; its type was repr'd whole (RecursionError),
    the transport closed the connection with 1011 and logged a traceback, where
    PROTOCOL.md closes a connection only for an oversized frame or abuse."""
    caplog.set_level(logging.ERROR)
    async with running_server(sqlite_url) as srv, srv.client() as c:
        reply = await c.send_raw('{"type":' + "[" * 1000 + "]" * 1000 + "}")
        assert reply["code"] == "bad_request"
        await c.ok(type="ping")
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
