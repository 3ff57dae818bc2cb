"""The frames of the transport's connections: the library's protocol with the ping guard
and a shortcut for the usual frame, and the header of a server's text frame (RFC 6455
5.2)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from websockets.frames import Frame, Opcode
from websockets.protocol import Protocol, State
from websockets.server import ServerProtocol
from websockets.streams import StreamReader

try:
    from websockets.speedups import apply_mask
except ImportError:  # (the library's pure-Python build)
    from websockets.utils import apply_mask

# Between two frames the parser (ServerProtocol.parse) is in Protocol.parse, waiting in
# StreamReader.at_eof for the next frame's first byte.
_FRAMES = Protocol.parse.__code__
_WAITING = StreamReader.at_eof.__code__


class GuardedProtocol(ServerProtocol):
    """The library's protocol, but a ping past the connection's rate (`spend` says
    False) gets no pong: the pong would be written whether or not the peer reads (the
    ping flood). The guard is on the way out: the library sends a frame only for a
    pong, a ping or a close (the transport writes its messages itself), while every
    frame received would pay for a guard on the way in."""

    spend: Callable[[str], bool]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        sizes = (self.max_message_size, self.max_fragment_size, 65_535)
        self.whole_limit = min(size for size in sizes if size is not None)  # (whole_text)

    def send_frame(self, frame: Frame) -> None:
        if frame.opcode is Opcode.PONG and not self.spend("ping"):
            return
        super().send_frame(frame)

    def whole_text(self, data: bytes) -> bytes | None:
        """The payload when `data` is exactly one whole, final, masked text frame of at
        most 65,535 bytes, within the size limit, arriving between two frames outside a
        fragmented message, with no extension (nearly every client message): unmasked
        as the library's parser would, which is left waiting for the next frame as it
        was. None otherwise: the caller hands the bytes to `receive_data`. (The parser
        is a chain of generators, about a fifth of the event loop's work per message.)"""
        n = len(data)
        if n < 6 or data[0] != 0x81 or self.state is not State.OPEN:
            return None  # (0x81: FIN, no reserved bit, text)
        size, start = data[1] ^ 0x80, 6  # (no mask bit: 128 or more)
        if size == 126 and n >= 8:
            size, start = (data[2] << 8) | data[3], 8
        elif size >= 126:
            return None
        if (
            n != start + size
            or size > self.whole_limit
            or self.current_size is not None
            or self.extensions
        ):
            return None
        frames = self.parser.gi_yieldfrom  # type: ignore[attr-defined]  # (after the handshake)
        if frames is None or frames.gi_code is not _FRAMES:
            return None
        waiting = frames.gi_yieldfrom
        if waiting is None or waiting.gi_code is not _WAITING:
            return None
        return apply_mask(data[start:], data[start - 4 : start])


def text_header(length: int) -> bytes:
    """The header of an unmasked, final text frame carrying `length` bytes."""
    if length < 126:
        return bytes((0x81, length))
    if length < 65536:
        return b"\x81\x7e" + length.to_bytes(2, "big")
    return b"\x81\x7f" + length.to_bytes(8, "big")
