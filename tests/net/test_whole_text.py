"""The shortcut for a whole text frame (`GuardedProtocol.whole_text`): it takes exactly
the frames the library's parser would turn into one final text message, gives the same
payload, and leaves the parser as it was; anything else goes to the library."""

from __future__ import annotations

import os

import pytest
from websockets.frames import Frame, Opcode
from websockets.http11 import Request
from websockets.protocol import State

from server.net.frames import GuardedProtocol

MAX = 70_000


def opened(max_size: int = MAX) -> GuardedProtocol:
    ws = GuardedProtocol(max_size=max_size)
    key = "dGhlIHNhbXBsZSBub25jZQ=="
    ws.receive_data(
        b"GET /ws HTTP/1.1\r\nHost: t\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        b"Sec-WebSocket-Key: " + key.encode() + b"\r\nSec-WebSocket-Version: 13\r\n\r\n"
    )
    [request] = ws.events_received()
    assert isinstance(request, Request)
    ws.send_response(ws.accept(request))
    ws.data_to_send()
    assert ws.state is State.OPEN
    return ws


def client_frame(payload: bytes, opcode: int = 0x1, fin: bool = True, masked: bool = True) -> bytes:
    n = len(payload)
    first = (0x80 if fin else 0) | opcode
    if n < 126:
        head = bytes((first, (0x80 if masked else 0) | n))
    elif n < 65536:
        head = bytes((first, (0x80 if masked else 0) | 126)) + n.to_bytes(2, "big")
    else:
        head = bytes((first, (0x80 if masked else 0) | 127)) + n.to_bytes(8, "big")
    if not masked:
        return head + payload
    mask = os.urandom(4)
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def library(data: bytes, ws: GuardedProtocol | None = None) -> list[Frame]:
    ws = ws or opened()
    ws.receive_data(data)
    return [e for e in ws.events_received() if isinstance(e, Frame)]


@pytest.mark.parametrize("size", [0, 1, 125, 126, 1000, 65_535])
def test_a_whole_text_frame_gives_the_librarys_payload(size: int) -> None:
    payload = os.urandom(size)
    data = client_frame(payload)
    [frame] = library(data)
    ws = opened()
    assert ws.whole_text(data) == frame.data == payload
    assert ws.events_received() == [] and ws.data_to_send() == []
    # the parser still waits for a frame: the next one, through the library, parses
    assert [f.data for f in library(client_frame(b"next"), ws)] == [b"next"]


@pytest.mark.parametrize(
    "data",
    [
        client_frame(os.urandom(65_536)),  # a 64-bit length
        client_frame(b"hi", masked=False),  # the library refuses it (1002)
        client_frame(b"hi", fin=False),  # a fragment
        client_frame(b"hi", opcode=0x2),  # binary
        client_frame(b"hi", opcode=0x9),  # a ping
        client_frame(b"hi")[:-1],  # a piece of a frame
        client_frame(b"hi") + client_frame(b"ho"),  # two frames
        client_frame(b"x" * 200)[:2],  # a header alone
    ],
)
def test_anything_else_goes_to_the_library(data: bytes) -> None:
    assert opened().whole_text(data) is None


def test_a_frame_over_the_size_limit_goes_to_the_library() -> None:
    data = client_frame(b"x" * 101)
    assert opened(max_size=100).whole_text(data) is None
    assert opened(max_size=101).whole_text(data) == b"x" * 101


def test_not_between_two_frames_it_leaves_the_bytes_to_the_library() -> None:
    ws = opened()
    first = client_frame(b"a" * 300)
    ws.receive_data(first[:8])  # the header is read: the parser waits for the payload
    second = client_frame(b"b")
    assert ws.whole_text(second) is None
    ws.receive_data(first[8:])
    assert [f.data for f in ws.events_received() if isinstance(f, Frame)] == [b"a" * 300]
    assert ws.whole_text(second) == b"b"  # between two frames again


def test_inside_a_fragmented_message_a_text_frame_is_the_librarys_error() -> None:
    ws = opened()
    [fragment] = library(client_frame(b"part", fin=False), ws)
    assert fragment.opcode is Opcode.TEXT and not fragment.fin
    data = client_frame(b"whole")
    assert ws.whole_text(data) is None
    ws.receive_data(data)  # "expected a continuation frame": the library fails it
    assert ws.state is State.CLOSING and ws.close_sent is not None
    assert ws.close_sent.code == 1002
