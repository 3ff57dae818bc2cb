"""`samedeal verify FILE [--receipt SEQ:HASH [--player NAME]]`: thin wrapper over
server.audit.verify and server.audit.receipts (offline)."""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any, TextIO

from server.audit.receipts import check_receipt, record_of_player
from server.audit.records import BUNDLE_FORMAT
from server.audit.verify import Unreadable, verify_document

EXIT_OK, EXIT_MISMATCH, EXIT_UNREADABLE = 0, 1, 2

_HEX64 = re.compile(r"[0-9a-fA-F]{64}")

RECEIPT_HELP = (
    "a receipt: the seq and log_hash of an acknowledged action (the STATE message's "
    "`seq` and `log_hash`; seq 0 is the join). Checks that the file's record holds that "
    "log, unchanged, and exits 1 if not. For a bundle, name the player with --player."
)
PLAYER_HELP = (
    "whose receipt it is: required with --receipt on a bundle; on a record, the record "
    "must be that player's"
)


def parse_receipt(text: str) -> tuple[int, str]:
    """'SEQ:HASH' -> (seq, lowercase hex); argparse's type for --receipt."""
    seq, sep, digest = text.partition(":")
    if not sep or not seq.isdigit() or not _HEX64.fullmatch(digest):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not SEQ:HASH (a seq of 0 or more and 64 hex digits)"
        )
    return int(seq), digest.lower()


def run(
    path: str,
    out: TextIO | None = None,
    receipt: tuple[int, str] | None = None,
    player: str | None = None,
) -> int:
    """Verify the record or bundle in `path` (and a receipt against it); print what was
    checked; return the exit code."""
    out = out or sys.stdout
    if player is not None and receipt is None:
        print("usage: --player goes with --receipt", file=out)
        return EXIT_UNREADABLE
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        is_bundle = isinstance(data, dict) and data.get("format") == BUNDLE_FORMAT
        if receipt is not None and is_bundle and player is None:
            print("usage: a receipt on a bundle needs --player NAME", file=out)
            return EXIT_UNREADABLE
        report = verify_document(data)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, Unreadable) as exc:
        print(f"unreadable: {path}: {exc}", file=out)
        return EXIT_UNREADABLE
    for line in report.checked:
        print(f"ok   {line}", file=out)
    for line in report.notes:
        print(f"note {line}", file=out)
    ok = report.ok
    if report.error is not None:
        print(f"FAIL {report.error}", file=out)
    if receipt is not None:
        ok = _receipt_line(data, is_bundle, receipt, player, out) and ok
    if not ok:
        return EXIT_MISMATCH
    print(f"verified: {path}", file=out)
    return EXIT_OK


def _receipt_line(
    data: dict[str, Any], is_bundle: bool, receipt: tuple[int, str], player: str | None, out: TextIO
) -> bool:
    """Print one line: is the acknowledged log in the file, unchanged?"""
    seq, digest = receipt
    record: Any = data
    if is_bundle:
        assert player is not None
        record = record_of_player(data, player)
    owner = record["player"]["name"] if record is not None else player
    what = f"receipt: the log {owner!r} acknowledged at seq {seq}"
    if record is None:
        why: str | None = f"the bundle has no record of {player!r}"
    elif player is not None and str(owner).casefold() != player.casefold():
        why = f"the record is {owner!r}'s, not {player!r}'s"
    else:
        why = check_receipt(record, seq, digest)
    if why is None:
        print(f"ok   {what} is in the {'bundle' if is_bundle else 'record'}, unchanged", file=out)
        return True
    print(f"FAIL {what} is not there unchanged: {why}", file=out)
    return False
