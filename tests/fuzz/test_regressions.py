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
_SPEC = "server/__main__.py _spec: "
_OPTIONS = (
    _SPEC + "json.loads(--options) raises RecursionError (deep) or ValueError (past 4,300 "
    "digits), not JSONDecodeError, and only that is caught: a traceback. Fix: catch "
    "(ValueError, RecursionError) there: UsageError('--options is not JSON ...')"
)
_HOURS = (
    _SPEC + "--hours is any float (argparse type=float): inf or nan make timedelta(hours=...) "
    "raise OverflowError or ValueError: a traceback. Fix: refuse a value that is not finite "
    "and positive (UsageError '--hours is a positive number of hours')"
)
KNOWN: dict[str, str] = {
    "protocol/type-nested-1000-deep": (
        "server/net/session.py _shape_error: `{kind!r}` of a type nested ~1000 deep (orjson "
        "reads up to 1024) raises RecursionError out of Session.handle; the real server's "
        "transport then logs a traceback and closes the connection with 1011, though "
        "PROTOCOL.md closes only on an oversized frame or abuse. Fix: quote a str type cut "
        "short (repr(kind[:40])) and name any other by its JSON type, never repr it whole"
    ),
    "operator_cli/hours-inf": _HOURS,
    "operator_cli/hours-nan": _HOURS,
    "operator_cli/options-nested-1040-deep": _OPTIONS,
    "operator_cli/options-number-of-5000-digits": _OPTIONS,
    "operator_cli/starts-at-year-9999": (
        _SPEC + "starts + timedelta(hours=...) past year 9999 raises OverflowError: a "
        "traceback. Fix: catch OverflowError there: UsageError('--hours ends past year 9999')"
    ),
    "operator_cli/starts-at-year-1-east-of-utc": (
        "server/__main__.py _when catches ValueError only, but timing.parse_iso's "
        "astimezone(UTC) of 0001-01-01T00:00:00+01:00 raises OverflowError: a traceback. "
        "Fix: catch (ValueError, OverflowError) in _when"
    ),
}


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
