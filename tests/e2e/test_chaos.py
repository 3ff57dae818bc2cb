"""The chaos bench's quick mode (bench/chaos.py): three nodes on one PostgreSQL database,
players reconnecting to random nodes while nodes are SIGKILLed and restarted, frozen,
and PostgreSQL "restarted" (every backend of the bench's database terminated and new
connections refused for a few seconds: the machine's server is shared). Nothing
acknowledged is lost, no resume is stale, no process is orphaned, the connections stay
within the budget and no node logs a traceback. The long run: docs/RELIABILITY.md."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

QUICK = ["--seconds", "35", "--players", "10", "--restart-every", "12", "--json"]


def test_the_quick_chaos_run_loses_nothing_and_leaves_nothing(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bench.chaos", *QUICK, "--logs", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    print(out)
    assert out["kills"] >= 1 and out["restarts"] >= 1 and out["acknowledged"] > 0, out
    assert not out["bench_errors"], out
    assert out["lost"] == 0, out
    assert out["stale"] == 0, out
    assert out["orphans"] == 0, out
    assert out["tracebacks"] == 0, out
    assert out["connection_peak"] <= out["connection_budget"], out
