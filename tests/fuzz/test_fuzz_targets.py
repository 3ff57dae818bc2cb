"""A short atheris run of each fuzz target (tests/fuzz/run.py), in a process of its own
(atheris.Fuzz ends its process), with libFuzzer's seed fixed so that a run repeats.
SAMEDEAL_FUZZ_RUNS (executions per target, default 3,000) or SAMEDEAL_FUZZ_SECONDS
(seconds per target) make them longer, with a new seed each time."""

from __future__ import annotations

import os

import pytest

from tests.fuzz.run import TARGETS, run_target

pytest.importorskip("atheris")

RUNS = int(os.environ.get("SAMEDEAL_FUZZ_RUNS", "3000"))
SECONDS = int(os.environ.get("SAMEDEAL_FUZZ_SECONDS", "0")) or None


@pytest.mark.parametrize("target", TARGETS)
def test_fuzz_target(tmp_path, target: str) -> None:
    long = SECONDS is not None or "SAMEDEAL_FUZZ_RUNS" in os.environ
    outcome = run_target(target, tmp_path / target, RUNS, SECONDS, None if long else 1)
    print(f"\nfigures: {outcome.line()}")
    assert outcome.ok, outcome.output[-4000:]
    assert outcome.executions >= (RUNS if SECONDS is None else 1)
    assert outcome.cov > 0
