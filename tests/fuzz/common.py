"""What the fuzz targets share: coverage instrumentation, the atheris entry point and
the contract's vectors as seeds.

A target is a module `tests/fuzz/fuzz_<name>.py` with `one_input(data: bytes)`, which
raises only when the code under test breaks its promise (an unexpected exception, or a
check that fails), `seeds()` (bytes to start from, made from the repository's vectors)
and `TOKENS` (a libFuzzer dictionary). Run as a module (`python -m
tests.fuzz.fuzz_<name> [libFuzzer options]`) it fuzzes under atheris; imported, it is
plain code (the regression tests run `one_input` on every input saved under
tests/fuzz/regressions/<name>/ with no atheris at all). `tests/fuzz/run.py` runs them.
"""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

REPO = Path(__file__).parents[2]
DATA = REPO / "tests" / "data"
REGRESSIONS = Path(__file__).parent / "regressions"


def instrumented(active: bool, *also: str) -> contextlib.AbstractContextManager[Any]:
    """Wrap the imports of the code under test: under atheris, its bytecode reports
    coverage (the project's own packages, and the pure-Python modules named in `also`
    where they decide what our code sees, e.g. argparse)."""
    if not active:
        return contextlib.nullcontext()
    import atheris

    return atheris.instrument_imports(include=["server", "client_cli", *also])


def fuzz(one_input: Callable[[bytes], None]) -> None:
    """The atheris entry point: libFuzzer's options come from the command line."""
    import atheris

    atheris.Setup(sys.argv, one_input)
    atheris.Fuzz()


def vector(name: str) -> Any:
    return json.loads((DATA / name).read_text(encoding="utf-8"))


def compact(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode()


def case_documents() -> Iterator[dict[str, Any]]:
    """The 22 records and bundles of the contract's verify cases (ok and tampered)."""
    for case in vector("verify-cases-v1.json")["cases"]:
        yield case["document"]


class Reader:
    """Bytes read as choices: structure-aware fuzzing without atheris's data provider
    (so that `one_input` runs without atheris). Past the end every read is 0."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.at = 0

    def __bool__(self) -> bool:
        return self.at < len(self.data)

    def byte(self) -> int:
        b = self.data[self.at] if self.at < len(self.data) else 0
        self.at += 1
        return b

    def take(self, n: int) -> bytes:
        out = self.data[self.at : self.at + n]
        self.at += n
        return out

    def pick(self, items: list[str]) -> str:
        return items[self.byte() % len(items)]

    def text(self) -> str:
        return self.take(self.byte() % 32).decode("utf-8", "surrogateescape")


FLOATS = ["1e400", "-1e400", "-0.0", "1.5", "1e-400", "0.1e1", "1E+2"]


def json_text(r: Reader, words: list[str], depth: int = 0) -> str:
    """A JSON text (or nearly: the rare bad number is the point) chosen by the bytes: the
    shapes a hostile peer sends in few bytes, e.g. nesting 8 levels a byte deep, a
    number of 24 digits a byte long, a string of 256 characters a byte long."""
    kind = r.byte() % (12 if depth < 4 else 9)
    if kind == 0:
        return r.pick(["null", "true", "false"])
    if kind == 1:
        return str(r.byte() - 128)
    if kind == 2:
        return r.pick(["-", ""]) + "9" * (1 + 24 * r.byte())
    if kind == 3:
        return r.pick(FLOATS)
    if kind == 4:
        return json.dumps(r.text())
    if kind == 5:
        return json.dumps(r.pick(words))
    if kind == 6:
        return json.dumps("x" * (256 * r.byte()))
    if kind == 7:
        n = 8 * r.byte()
        return "[" * n + "]" * n
    if kind == 8:
        n = 8 * r.byte()
        return '{"a":' * n + "1" + "}" * n
    if kind == 9:
        return "[" + ",".join(json_text(r, words, depth + 1) for _ in range(r.byte() % 5)) + "]"
    members = (
        f"{json.dumps(r.pick(words))}:{json_text(r, words, depth + 1)}" for _ in range(r.byte() % 5)
    )
    return "{" + ",".join(members) + "}"
