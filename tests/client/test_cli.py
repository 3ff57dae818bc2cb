"""The `samedeal` commands as a user runs them, against a real server."""

from __future__ import annotations

import asyncio
import json
import os
import stat
from datetime import UTC, datetime
from pathlib import Path

from tests.support.harness import Clock, running_server, until
from tests.support.processes import samedeal


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
            env, "create", "--json", "--name", "Cli Cup", "--options", '{"redeals": 1}'
        )
        assert code == 1 and "forbidden" in err
        await srv.app.store.set_admin("organiser")
        code, out, err = await samedeal(
            env,
            "create",
            "--json",
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
        code, out, _ = await samedeal(env, "--lang", "es", "tournaments")
        assert code == 0 and "Gaps, 1 redistribución" in out  # the game in the chosen language

        code, out, err = await samedeal(
            env, "bot", "--tournament", str(tid), "--players", "3", "--strategy", "greedy"
        )
        assert code == 0, out + err
        lines = out.strip().splitlines()
        assert len(lines) == 3 and all(("lost" in x) or ("won" in x) for x in lines), out
        receipts = tmp_path / "cfg" / "samedeal" / "receipts.json"  # each bot's last receipt
        assert stat.S_IMODE(receipts.stat().st_mode) == 0o600
        kept = json.loads(receipts.read_text())["receipts"][srv.ws_url]
        assert len(kept) == 3 and all(set(games) == {str(tid)} for games in kept.values())

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

        async def following() -> bool:  # the process has started and subscribed
            room = srv.app.fanout.rooms.get(tid)
            return room is not None and bool(room.subscribers)

        await until(following, seconds=60.0)
        code, out, err = await samedeal(env, "close", "--json", str(tid))
        assert code == 0 and len(json.loads(out)["seed"]) == 64
        code, out, _ = await follow
        assert code == 0 and "closed; seed" in out and "final" in out

        rec_file = tmp_path / "rec.json"
        code, _, err = await samedeal(
            env, "record", str(tid), rows[0]["player"], "-o", str(rec_file)
        )
        seq = kept[rows[0]["player"]][str(tid)]["seq"]
        assert code == 0 and err == (
            f"receipt: {rows[0]['player']}'s log up to seq {seq} is in the record, unchanged\n"
        ), err
        bundle_file = tmp_path / "bundle.json"
        code, _, err = await samedeal(env, "bundle", str(tid), "-o", str(bundle_file))
        assert code == 0 and err.count("is in the bundle, unchanged") == 3, err
        for f in (rec_file, bundle_file):
            code, out, _ = await samedeal(env, "verify", str(f))
            assert code == 0 and "verified" in out


async def test_cli_without_token_or_server(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "XDG_CONFIG_HOME": str(tmp_path / "none"),
        "SAMEDEAL_SERVER": "ws://127.0.0.1:9/ws",
    }
    code, _, err = await samedeal(env, "tournaments")  # public: no token needed
    assert code == 1 and err.startswith("samedeal: cannot connect to ws://127.0.0.1:9/ws")
    code, _, err = await samedeal(env, "close", "1")  # a dead port is no missing token
    assert code == 1 and "cannot connect" in err and err.count("\n") == 1
