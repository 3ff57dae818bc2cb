"""The frames of the transport's connections: the library's protocol with the ping guard,
and the header of a server's text frame (RFC 6455 5.2)."""

from __future__ import annotations

from collections.abc import Callable

from websockets.frames import Frame, Opcode
from websockets.server import ServerProtocol


class GuardedProtocol(ServerProtocol):
    """The library's protocol, but a ping past the connection's rate (`spend` says
    False) gets no pong: the pong would be written whether or not the peer reads (the
    ping flood). The guard is on the way out: the library sends a frame only for a
    pong, a ping or a close (the transport writes its messages itself), while every
    frame received would pay for a guard on the way in."""

    spend: Callable[[str], bool]

    def send_frame(self, frame: Frame) -> None:
        if frame.opcode is Opcode.PONG and not self.spend("ping"):
            return
        super().send_frame(frame)


def text_header(length: int) -> bytes:
    """The header of an unmasked, final text frame carrying `length` bytes."""
    if length < 126:
        return bytes((0x81, length))
    if length < 65536:
        return b"\x81\x7e" + length.to_bytes(2, "big")
    return b"\x81\x7f" + length.to_bytes(8, "big")
