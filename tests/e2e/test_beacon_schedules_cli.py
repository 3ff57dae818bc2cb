"""Beacon tournaments and schedules from both command lines, as an organiser meets them:
real server processes on SQLite with a local test relay over a keyed test network (given
to the server with --beacon-relay and --beacon-networks, to the commands with
--beacon-networks). `samedeal create --beacon` and `samedeal schedule create --beacon`
publish each round at creation; an occurrence opens once its round is verified; a network
nobody knows is one line on stderr and exit status 2, on either command line."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tests.support.beacon import KeyedNetwork
from tests.support.harness import ws_client
from tests.support.processes import ServerProcess, cli, samedeal
from tests.support.relay import Relay, serving

NET = KeyedNetwork("cli-beacon-test", sk=4242, genesis_time=1_700_000_000, period=3)


@dataclass(frozen=True)
class Site:
    db: str
    port: int
    nets: Path
    env: dict[str, str]  # the client's: an admin's token saved, the server's address


@pytest.fixture
def site(tmp_path: Path) -> Iterator[Site]:
    db = f"sqlite+aiosqlite:///{tmp_path / 'site.db'}"
    nets = tmp_path / "nets.json"
    nets.write_text(json.dumps({NET.network.name: NET.spec}))
    relay = Relay(NET)
    relay.latest = 10**9  # serves any round asked for; the server asks only once it is due
    with serving(relay):
        extra = ("--no-demo", "--beacon-relay", relay.url, "--beacon-networks", str(nets))
        server = ServerProcess(db, tmp_path / "server.log", extra)
        env = {
            **os.environ,
            "XDG_CONFIG_HOME": str(tmp_path / "home"),
            "SAMEDEAL_SERVER": f"ws://127.0.0.1:{server.port}/ws",
        }
        try:
            code, _, err = asyncio.run(samedeal(env, "register", "boss"))
            assert code == 0, err
            assert cli(db, "admin", "grant", "boss").returncode == 0
            yield Site(db, server.port, nets, env)
        finally:
            server.stop()


def one_line_usage_error(code: int, out: str, err: str, word: str) -> None:
    assert code == 2, (code, out, err)
    assert len(err.splitlines()) == 1 and "Traceback" not in err + out, err
    assert word in err, err


async def test_create_and_schedule_with_a_beacon_from_the_terminal_client(site: Site) -> None:
    nets = ("--beacon-networks", str(site.nets))
    code, out, err = await samedeal(
        site.env, "create", "--json", "--name", "Beacon Cup", "--beacon", NET.network.name, *nets
    )
    assert code == 0, err
    t = json.loads(out)
    assert t["status"] == "scheduled" and set(t["beacon"]) == {"network", "chain_hash", "round"}
    assert t["beacon"]["chain_hash"] == NET.network.chain_hash
    first = datetime.now(UTC) + timedelta(seconds=5)
    code, out, err = await samedeal(
        site.env,
        "schedule",
        "create",
        "--json",
        "--name",
        "Beacon Minutely",
        "--at",
        first.isoformat(),
        "--every",
        "60s",
        "--duration",
        "10m",
        "--beacon",
        NET.network.name,
        *nets,
    )
    assert code == 0, err
    s = json.loads(out)
    assert s["beacon"] == {"network": NET.network.name}
    one = s["next"][0]
    assert one["occurrence"] == 1 and one["status"] == "scheduled"
    round_ = one["beacon"]["round"]  # published at creation: at or after created_at + 30 s
    created = datetime.fromisoformat(one["created_at"]).timestamp()
    assert NET.network.round_time(round_) >= created + 30 > NET.network.round_time(round_ - 1)
    async with ws_client(site.port) as c:  # not open before its round is verified
        await c.ok(type="register", name="alice")
        await c.err("not_open", type="join", tournament=one["id"])
        deadline = time.monotonic() + 120  # the round comes ~30 s on, then it is fetched
        while time.monotonic() < deadline:
            items = (await c.ok(type="tournaments"))["items"]
            now = next(x for x in items if x["id"] == one["id"])
            if now["status"] == "open":
                break
            await asyncio.sleep(0.5)
        assert now["status"] == "open" and now["beacon"]["signature"], now
        assert now["beacon"]["signature"] == NET.sign(round_).signature.hex()
        state = await c.ok(type="join", tournament=one["id"])
        assert state["seq"] == 0
    code, out, _ = await samedeal(site.env, "schedule", "list", "--json")
    assert code == 0 and json.loads(out)[0]["beacon"] == {"network": NET.network.name}
    code, out, _ = await samedeal(site.env, "schedule", "list")
    assert code == 0 and f"beacon {NET.network.name}" in out.splitlines()[0]
    assert "Beacon Minutely #1: " in out and f", open, commitment {one['commitment']}" in out
    assert f"round {round_}" in out


async def test_the_operators_command_line_schedules_with_a_beacon(site: Site) -> None:
    first = (datetime.now(UTC) + timedelta(hours=1)).isoformat()
    run = cli(
        site.db,
        "schedule",
        "create",
        "--json",
        "--name",
        "Hourly",
        "--at",
        first,
        "--every",
        "1h",
        "--duration",
        "30m",
        "--beacon",
        NET.network.name,
        "--beacon-networks",
        str(site.nets),
    )
    assert run.returncode == 0, run.stderr
    s = json.loads(run.stdout)
    assert s["beacon"] == {"network": NET.network.name}
    assert s["next"][0]["beacon"]["round"] == NET.network.first_round_at(
        datetime.fromisoformat(first).timestamp()
    )


async def test_a_network_nobody_knows_is_one_line_and_exit_2(site: Site) -> None:
    at = ("--at", (datetime.now(UTC) + timedelta(hours=1)).isoformat())
    for argv in (
        ["create", "--json", "--name", "X", "--beacon", "nowhere"],
        ["create", "--json", "--name", "X", "--beacon", NET.network.name],  # no --beacon-networks
        ["schedule", "create", "--json", "--name", "X", *at, "--beacon", "nowhere"],
        [
            "create",
            "--json",
            "--name",
            "X",
            "--beacon",
            "quicknet",
            "--beacon-networks",
            "/nonexistent",
        ],
    ):
        code, out, err = await samedeal(site.env, *argv)
        word = "nonexistent" if "/nonexistent" in argv else "not a known drand network"
        one_line_usage_error(code, out, err, word)
    for argv in (
        ["tournament", "create", "--json", "--name", "X", "--beacon", "nowhere"],
        ["schedule", "create", "--json", "--name", "X", *at, "--beacon", "nowhere"],
    ):
        run = cli(site.db, *argv)
        one_line_usage_error(run.returncode, run.stdout, run.stderr, "not a known drand network")
    async with ws_client(site.port) as c:
        assert (await c.ok(type="schedules"))["items"] == []
        assert (await c.ok(type="tournaments"))["items"] == []


def test_help_names_the_beacon_flag() -> None:
    import subprocess

    for module, argv in (
        ("client_cli", ["create", "--help"]),
        ("client_cli", ["schedule", "create", "--help"]),
        ("server", ["tournament", "create", "--help"]),
        ("server", ["schedule", "create", "--help"]),
    ):
        done = subprocess.run(
            [sys.executable, "-m", module, *argv], capture_output=True, text=True, timeout=60
        )
        assert done.returncode == 0 and "--beacon NETWORK" in done.stdout, done.stdout
