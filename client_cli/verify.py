"""`samedeal verify FILE`: thin wrapper over server.audit.verify (offline)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TextIO

from server.audit.verify import Unreadable, verify_document

EXIT_OK, EXIT_MISMATCH, EXIT_UNREADABLE = 0, 1, 2


def run(path: str, out: TextIO | None = None) -> int:
    """Verify the record or bundle in `path`; print what was checked; return the exit code."""
    out = out or sys.stdout
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        report = verify_document(data)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, Unreadable) as exc:
        print(f"unreadable: {path}: {exc}", file=out)
        return EXIT_UNREADABLE
    for line in report.checked:
        print(f"ok   {line}", file=out)
    if report.error is not None:
        print(f"FAIL {report.error}", file=out)
        return EXIT_MISMATCH
    print(f"verified: {path}", file=out)
    return EXIT_OK
