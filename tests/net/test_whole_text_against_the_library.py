"""The fast path of a whole text frame (server/net/frames.py `whole_text`) against the
library alone: the same random frame streams, cut at frames, at random or at every byte,
give the same frames, the same bytes sent, the same state and close (a differential fuzz)."""

from __future__ import annotations

import random

import pytest
from websockets.frames import Frame, Opcode

from tests.net.test_whole_text import opened


def raw(first: int, payload: bytes, masked=True, lenform=None, mask=None) -> bytes:
    n = len(payload)
    form = lenform or ("7" if n < 126 else "16" if n < 65536 else "64")
    if form == "16" and n >= 65536:
        form = "64"
    m = 0x80 if masked else 0
    if form == "7":
        head = bytes((first, m | n))
    elif form == "16":
        head = bytes((first, m | 126)) + n.to_bytes(2, "big")
    else:
        head = bytes((first, m | 127)) + n.to_bytes(8, "big")
    if not masked:
        return head + payload
    mask = mask if mask is not None else bytes(4)  # (the fuzz gives a random one)
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


PAYLOADS = [
    b"",
    b"hi",
    b"\xff\xfe",
    b"\xc0\xaf",
    b"\xed\xa0\x80",
    "é".encode(),
    b"x" * 125,
    b"y" * 126,
    b"z" * 1000,
    b"\x03\xe8",
    b"\x03\xe8ok",
]


def rand_frame(r: random.Random, max_size: int) -> bytes:
    if r.random() < 0.05:  # 64-bit length, high bit set, then a little data
        return b"\x81\xff" + bytes((0x80 | r.randrange(256),)) + bytes(7) + b"mask" + b"abc"
    if r.random() < 0.05:  # 16-bit length claiming more than follows
        return b"\x81\xfe\x00\xc8mask" + b"short"
    first = r.choice(
        [
            0x81,
            0x81,
            0x81,
            0x01,
            0x80,
            0x00,
            0x82,
            0x89,
            0x8A,
            0x88,
            0xC1,
            0xA1,
            0x91,
            0x83,
            0x8B,
            0x09,
        ]
    )
    payload = r.choice([*PAYLOADS, b"q" * r.choice([max_size, max_size + 1, 65535])])
    if first & 0x0F >= 8 and len(payload) > 125 and r.random() < 0.7:
        payload = payload[:125]
    form = r.choice([None, None, "16", "64"])
    masked = r.random() > 0.05
    return raw(first, payload, masked, form, r.randbytes(4))


def record(ws, events, out):
    for e in events:
        if isinstance(e, Frame):
            out.append((e.opcode, e.fin, bytes(e.data)))


def run(stream: bytes, cuts: list[int], fast: bool, max_size: int):
    ws = opened(max_size)
    got, sent = [], []
    prev = 0
    for c in [*cuts, len(stream)]:
        piece = stream[prev:c]
        prev = c
        if not piece or ws.state.name == "CLOSED":
            continue
        p = ws.whole_text(piece) if fast else None
        if p is not None:
            got.append((Opcode.TEXT, True, p))
            continue
        ws.receive_data(piece)
        record(ws, ws.events_received(), got)
        sent += ws.data_to_send()
    return got, b"".join(sent), ws.state, ws.close_sent, ws.current_size


@pytest.mark.parametrize("seed", range(400))
def test_fast_path_matches_library(seed: int) -> None:
    r = random.Random(seed)
    max_size = r.choice([100, 1000, 64 * 1024, 70_000])
    frames = [rand_frame(r, max_size) for _ in range(r.randrange(1, 6))]
    stream = b"".join(frames)
    bounds, acc = [], 0
    for f in frames:
        acc += len(f)
        bounds.append(acc)
    mode = r.choice(["frames", "random", "bytes"]) if len(stream) < 3000 else "frames"
    if mode == "frames":
        cuts = bounds[:-1]
    elif mode == "random":
        cuts = sorted(set(r.sample(range(1, len(stream)), min(5, len(stream) - 1)) + bounds[:1]))
    else:
        cuts = list(range(1, len(stream)))
    assert run(stream, cuts, True, max_size) == run(stream, cuts, False, max_size)
