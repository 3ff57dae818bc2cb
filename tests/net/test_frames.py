"""A server's text frame (frames.py `text_header`): its two-to-ten-byte header and the
data are byte for byte what the library's own frame would write, at every header size
(the transport's ping guard is tested under a ping flood in test_hostile.py)."""

from __future__ import annotations

from websockets.frames import Frame, Opcode

from server.net.frames import text_header


def test_a_text_frame_is_written_as_the_protocol_would_write_it() -> None:
    for size in (0, 1, 125, 126, 127, 65535, 65536, 70_000):
        data = b"x" * size
        want = Frame(Opcode.TEXT, data).serialize(mask=False, extensions=[])
        assert text_header(size) + data == want, size
