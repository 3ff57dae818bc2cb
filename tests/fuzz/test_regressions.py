"""Every input a fuzz target ever crashed on (tests/fuzz/regressions/TARGET/NAME), run
through the target's `one_input` with no fuzzer: none may fail again.

An input whose fix belongs to a file this suite's owner does not hold is listed in
KNOWN with the fix it waits for; it is a strict xfail, so the fix turns it into a
failure that says to take it off the list.
"""

from __future__ import annotations

from importlib import import_module
from pathlib import Path

import pytest

from tests.fuzz.common import REGRESSIONS

INPUTS = sorted(p for p in REGRESSIONS.glob("*/*") if p.is_file())
KNOWN: dict[str, str] = {}  # none waits for a fix now


@pytest.mark.parametrize("path", INPUTS, ids=[f"{p.parent.name}/{p.name}" for p in INPUTS])
def test_a_crash_found_once_stays_fixed(path: Path, request) -> None:
    key = f"{path.parent.name}/{path.name}"
    if key in KNOWN:
        request.applymarker(pytest.mark.xfail(reason=KNOWN[key], strict=True))
    module = import_module(f"tests.fuzz.fuzz_{path.parent.name}")
    module.one_input(path.read_bytes())


def test_every_regression_belongs_to_a_target() -> None:
    targets = {p.stem.removeprefix("fuzz_") for p in REGRESSIONS.parent.glob("fuzz_*.py")}
    assert {p.parent.name for p in INPUTS} <= targets
    assert set(KNOWN) <= {f"{p.parent.name}/{p.name}" for p in INPUTS}
