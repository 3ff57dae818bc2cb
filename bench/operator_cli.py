"""The operator's command line as the benches call it: `samedeal-server tournament ...`
with its JSON output, on builds old and new (before issue 39 the commands printed JSON
and made a missing SQLite file; since, they print words unless `--json` and refuse a
missing file, which `migrate` makes)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

PY = sys.executable


def tournament(url: str, *args: str, cwd: Path | None = None) -> dict[str, Any]:
    """The JSON object the command `tournament ARGS` printed last (raises on failure)."""
    base = [PY, "-m", "server", "--database-url", url]
    subprocess.run([*base, "migrate"], capture_output=True, check=True, cwd=cwd)
    done = subprocess.run(
        [*base, "tournament", *args, "--json"], capture_output=True, text=True, cwd=cwd
    )
    if done.returncode == 2:  # an older build: no --json, JSON by default
        done = subprocess.run([*base, "tournament", *args], capture_output=True, text=True, cwd=cwd)
    if done.returncode != 0:
        raise subprocess.CalledProcessError(done.returncode, done.args, done.stdout, done.stderr)
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))
