"""The `samedeal` commands as a user runs them, against a real server."""

from __future__ import annotations

import asyncio
import json
import os
import stat
import sys
from datetime import UTC, datetime
from pathlib import Path

from tests.e2e.harness import Clock, running_server
from tests.e2e.test_tournament import create_msg


async def samedeal(env: dict[str, str], *args: str) -> tuple[int, str, str]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "client_cli",
        *args,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(proc.communicate(), 120)
    return proc.returncode or 0, out.decode(), err.decode()


async def test_cli_round_trip(sqlite_url, tmp_path: Path) -> None:
    async with running_server(sqlite_url, Clock(datetime.now(UTC))) as srv:
        env = {
            **os.environ,
            "XDG_CONFIG_HOME": str(tmp_path / "cfg"),
            "SAMEDEAL_SERVER": srv.ws_url,
        }
        code, out, _ = await samedeal(env, "register", "organiser")
        assert code == 0 and "registered organiser" in out
        tokens = tmp_path / "cfg" / "samedeal" / "tokens.json"
        assert stat.S_IMODE(tokens.stat().st_mode) == 0o600
        assert json.loads(tokens.read_text())[srv.ws_url]["name"] == "organiser"

        code, _, err = await samedeal(
            env, "create", "--name", "Cli Cup", "--options", '{"redeals": 1}'
        )
        assert code == 1 and "forbidden" in err
        await srv.app.store.set_admin("organiser")
        code, out, err = await samedeal(
            env,
            "create",
            "--name",
            "Cli Cup",
            "--options",
            '{"redeals": 1}',
            "--time-limit-s",
            "600",
        )
        assert code == 0, err
        tid = json.loads(out)["id"]

        code, out, _ = await samedeal(env, "tournaments")
        assert code == 0 and "Cli Cup" in out and "open" in out

        code, out, err = await samedeal(
            env, "bot", "--tournament", str(tid), "--players", "3", "--strategy", "greedy"
        )
        assert code == 0, out + err
        lines = out.strip().splitlines()
        assert len(lines) == 3 and all(("lost" in x) or ("won" in x) for x in lines), out

        code, out, _ = await samedeal(env, "standings", str(tid))
        assert code == 0 and out.count("\n") >= 4 and "live" in out
        code, out, _ = await samedeal(env, "standings", str(tid), "--json")
        rows = json.loads(out)["rows"]
        assert len(rows) == 3 and rows[0]["rank"] == 1

        code, _, err = await samedeal(env, "record", str(tid), rows[0]["player"])
        assert code == 1 and "not_revealed" in err
        code, _, err = await samedeal(env, "bundle", str(tid))
        assert code == 1

        follow = asyncio.create_task(samedeal(env, "standings", str(tid), "--follow"))
        await asyncio.sleep(1.5)
        code, out, err = await samedeal(env, "close", str(tid))
        assert code == 0 and len(json.loads(out)["seed"]) == 64
        code, out, _ = await follow
        assert code == 0 and "closed; seed" in out and "final" in out

        rec_file = tmp_path / "rec.json"
        code, _, _ = await samedeal(env, "record", str(tid), rows[0]["player"], "-o", str(rec_file))
        assert code == 0
        bundle_file = tmp_path / "bundle.json"
        code, _, _ = await samedeal(env, "bundle", str(tid), "-o", str(bundle_file))
        assert code == 0
        for f in (rec_file, bundle_file):
            code, out, _ = await samedeal(env, "verify", str(f))
            assert code == 0 and "verified" in out


async def test_cli_without_token_or_server(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "XDG_CONFIG_HOME": str(tmp_path / "none"),
        "SAMEDEAL_SERVER": "ws://127.0.0.1:9/ws",
    }
    code, _, err = await samedeal(env, "tournaments")
    assert code != 0 and "register" in err


async def test_bots_play_klondike_too(sqlite_url) -> None:
    from client_cli.bots import run_bots

    async with running_server(sqlite_url) as srv:
        op = await srv.admin()
        t = await op.ok(**create_msg(game="klondike", options={"draw": 1, "passes": 2}))
        results = await run_bots(srv.ws_url, t["tournament"]["id"], 2, "greedy")
        assert all(r.status in ("won", "resigned") for r in results), results
        assert all(r.actions > 5 for r in results)
        await op.close()
