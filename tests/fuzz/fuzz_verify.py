"""Fuzz target: `samedeal verify FILE` (client_cli.verify.run) on arbitrary bytes.

The promise (docs/RECORDS.md): exit 0, 1 or 2 and never 3 (a bug in the verifier) nor
an exception; every line printed is one printable line; an unreadable file gets exactly
one. The first byte picks the arguments: none, a receipt, a receipt and a player, or a
player alone (a usage error); the rest is the file.
"""

from __future__ import annotations

import atexit
import io
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from tests.fuzz.common import case_documents, compact, fuzz, instrumented

with instrumented(__name__ == "__main__"):
    from client_cli import verify

_DIR = Path(tempfile.mkdtemp(prefix="samedeal-fuzz-verify-"))
atexit.register(shutil.rmtree, _DIR, True)
_FILE = _DIR / "doc.json"
_PLAYERS = ["alice", "p1", "P2", "nobody"]


def one_input(data: bytes) -> None:
    if not data:
        return
    mode, body = data[0], data[1:]
    receipt = None if mode % 4 in (0, 3) else ((mode >> 2) % 9, f"{mode:064x}")
    player = _PLAYERS[(mode >> 4) % 4] if mode % 4 >= 2 else None
    _FILE.write_bytes(body)
    out = io.StringIO()
    status = verify.run(str(_FILE), out, receipt, player)
    lines = out.getvalue().splitlines()
    assert status in (verify.EXIT_OK, verify.EXIT_MISMATCH, verify.EXIT_UNREADABLE), lines
    assert all(line.isprintable() for line in lines), lines
    if status == verify.EXIT_UNREADABLE:
        assert len(lines) == 1, lines
    if status == verify.EXIT_OK:
        assert lines[-1].startswith("verified: "), lines


def seeds() -> Iterator[bytes]:
    """Every document of the contract's verify cases; the first few with receipts."""
    for i, doc in enumerate(case_documents()):
        yield bytes([0]) + compact(doc)
        if i < 3:
            yield bytes([1 + 4 * i]) + compact(doc)
            yield bytes([2 + 4 * i + 16]) + compact(doc)


TOKENS = [
    "format", "samedeal-record/1", "samedeal-bundle/1", "tournament", "player", "actions",
    "result", "seq", "at_ms", "action", "kind", "move", "card", "to", "redeal", "resign",
    "draw", "from", "count", "status", "progress", "resets", "time_ms", "score", "log_hash",
    "log_root", "standings", "records", "rank", "seed", "commitment", "started_at",
    "ends_at", "closed_at", "time_limit_s", "deal_attempt", "solution", "options", "redeals",
    "passes", "guaranteed", "hints", "won", "lost", "timed_out", "playing", "resigned",
    "gaps", "klondike", "null", "true", "1e400", "NaN", "-0", "9" * 41, "\\ud800", "[[[[[[[[",
    "]]]]]]]]", "2026-11-30T18:00:00Z", "9999-12-31T23:59:59Z", "\xef\xbb\xbf", "\xff",
]  # fmt: skip

if __name__ == "__main__":
    fuzz(one_input)
