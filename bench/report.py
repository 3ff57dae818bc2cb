"""Write a benchmark's section into docs/BENCHMARKS.md (between its markers)."""

from __future__ import annotations

import os
import platform
import statistics
import sys
from datetime import UTC, datetime
from pathlib import Path

DOC = Path(__file__).resolve().parents[1] / "docs" / "BENCHMARKS.md"


def machine() -> str:
    return (
        f"{os.cpu_count()} cores, {platform.machine()}, Python {platform.python_version()}, "
        f"{datetime.now(UTC):%Y-%m-%d}"
    )


def median(xs: list[float]) -> float:
    return statistics.median(xs)


def write_section(name: str, command: str, body: str) -> None:
    """Replace (or append) the section `name` of docs/BENCHMARKS.md."""
    start, end = f"<!-- bench:{name} -->", f"<!-- /bench:{name} -->"
    section = f"{start}\nCommand: `{command}` — {machine()}\n\n{body.strip()}\n{end}"
    text = DOC.read_text(encoding="utf-8") if DOC.exists() else "# Benchmarks\n"
    if start in text and end in text:
        before, rest = text.split(start, 1)
        _, after = rest.split(end, 1)
        text = before + section + after
    else:
        text = text.rstrip("\n") + "\n\n" + section + "\n"
    DOC.write_text(text, encoding="utf-8")
    print(f"updated {DOC.relative_to(DOC.parents[1])} [{name}]", file=sys.stderr)
