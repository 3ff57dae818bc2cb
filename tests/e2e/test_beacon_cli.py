"""The operator's beacon flags as an operator meets them: `tournament create --beacon`
(with --beacon-networks for a test network), and serve refusing a bad --beacon-networks
file or --beacon-relay URL at once, with one line and exit status 2."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.beacon import KeyedNetwork
from tests.support.processes import cli

NET = KeyedNetwork("cli-test", sk=99)


def test_tournament_create_with_a_beacon(sqlite_url: str, tmp_path: Path) -> None:
    assert cli(sqlite_url, "migrate").returncode == 0
    run = cli(
        sqlite_url,
        "tournament",
        "create",
        "--json",
        "--name",
        "Beacon Gaps",
        "--beacon",
        "quicknet",
    )
    assert run.returncode == 0, run.stderr
    t = json.loads(run.stdout)
    assert t["status"] == "scheduled" and t["void"] is False
    assert t["beacon"]["network"] == "quicknet" and t["beacon"]["round"] > 1
    assert "seed" not in t and "signature" not in t["beacon"]
    run = cli(sqlite_url, "tournament", "create", "--json", "--name", "X", "--beacon", "cli-test")
    assert run.returncode == 2 and "'cli-test' is not a known drand network" in run.stderr
    nets = tmp_path / "nets.json"
    nets.write_text(json.dumps({"cli-test": NET.spec}))
    run = cli(
        sqlite_url,
        "tournament",
        "create",
        "--json",
        "--name",
        "X",
        "--beacon",
        "cli-test",
        "--beacon-networks",
        str(nets),
    )
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["beacon"]["chain_hash"] == NET.network.chain_hash


def test_serve_refuses_bad_beacon_flags(sqlite_url: str, tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"quicknet": NET.spec}))
    for args, fragment in [
        (("--beacon-networks", str(tmp_path / "missing.json")), "No such file"),
        (("--beacon-networks", str(bad)), "built in and cannot be replaced"),
        (("--beacon-relay", "ftp://relay"), "is not an http(s) URL"),
    ]:
        run = cli(sqlite_url, "serve", "--port", "0", *args)
        assert run.returncode == 2, run.stderr
        assert fragment in run.stderr and run.stderr.count("\n") == 1, run.stderr
