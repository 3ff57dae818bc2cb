"""1,000 concurrent bot players finish their games with zero protocol errors.

SAMEDEAL_LOAD_PLAYERS changes the number (default 1000).
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

from client_cli.bots import run_bots
from tests.support.processes import ServerProcess, cli

PLAYERS = int(os.environ.get("SAMEDEAL_LOAD_PLAYERS", "1000"))


async def test_a_thousand_bots_finish_without_protocol_errors(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'load.db'}"
    made = cli(
        url,
        "tournament",
        "create",
        "--json",
        "--name",
        "Load",
        "--hours",
        "2",
        "--options",
        '{"redeals": 1}',
    )
    tid = json.loads(made.stdout)["id"]
    server = ServerProcess(url, tmp_path / "server.log")
    try:
        results = await asyncio.wait_for(
            run_bots(f"ws://127.0.0.1:{server.port}/ws", tid, PLAYERS, "greedy", prefix="lb"),
            timeout=600,
        )
    finally:
        server.stop()
    statuses = [r.status for r in results]
    assert len(results) == PLAYERS
    assert all(s in ("won", "lost") for s in statuses), {s for s in statuses}
    assert sum(r.errors for r in results) == 0
    assert sum(r.actions for r in results) > PLAYERS * 10
    assert "Traceback" not in (tmp_path / "server.log").read_text()
