"""Fair play from both command lines, as an operator types them: `samedeal disqualify`
and `samedeal fairplay` against a real server, `samedeal-server disqualify` and
`samedeal-server fairplay report` on the database (after the close: an amendment the
verifier accepts in the bundle). In process: what each sends and prints."""

from __future__ import annotations

import asyncio
import io
import json
import os
from datetime import UTC, datetime
from pathlib import Path

from client_cli import config
from client_cli.commands import fairplay
from client_cli.commands.registry import build_parser
from server.audit.fairplay_lines import disqualified_line, report_lines
from server.audit.verify import verify_document
from server.competition.service import Competition
from server.store.repository import Store
from tests.client.commands.conftest import URL
from tests.support.harness import Clock, running_server
from tests.support.processes import cli, samedeal


def run(*argv: str) -> tuple[int, list[str]]:
    out = io.StringIO()
    code = fairplay.run(build_parser().parse_args(["--server", URL, *argv]), out)
    return code, out.getvalue().splitlines()


def test_disqualify_sends_the_reason_and_says_an_amendment(scripted) -> None:
    config.save_token(URL, "op", "tok")
    reply = {"type": "disqualified", "tournament": 3, "player": "Bob", "amendment": {"n": 1}}
    conn = scripted({"disqualify": reply})
    assert run("disqualify", "3", "bob", "--reason", "two accounts") == (
        0,
        [disqualified_line("en", 3, "Bob", True)],
    )
    sent = {"type": "disqualify", "tournament": 3, "player": "bob", "reason": "two accounts"}
    assert conn.of("disqualify") == [sent]


def test_the_report_asks_for_its_moves_and_prints_each_finding(scripted) -> None:
    config.save_token(URL, "op", "tok")
    findings = [{"player": "bob", "kind": "timing", "detail": {"moves": 5}}]
    conn = scripted({"fairplay_report": {"type": "fairplay_report", "findings": findings}})
    assert run("fairplay", "3", "--moves", "5", "--json") == (
        0,
        report_lines("en", findings, True),
    )
    assert conn.of("fairplay_report") == [{"type": "fairplay_report", "tournament": 3, "moves": 5}]


async def test_samedeal_disqualify_and_fairplay(sqlite_url, tmp_path: Path) -> None:
    async with running_server(sqlite_url, Clock(datetime.now(UTC))) as srv:
        env = {
            **os.environ,
            "XDG_CONFIG_HOME": str(tmp_path / "cfg"),
            "SAMEDEAL_SERVER": srv.ws_url,
        }
        assert (await samedeal(env, "register", "organiser"))[0] == 0
        await srv.app.store.set_admin("organiser")
        code, out, err = await samedeal(
            env, "create", "--json", "--name", "Fair Cup", "--time-limit-s", "600"
        )
        assert code == 0, err
        tid = json.loads(out)["id"]
        code, out, err = await samedeal(env, "bot", "--tournament", str(tid), "--players", "3")
        assert code == 0, out + err
        name = out.split()[0]

        code, _, err = await samedeal(env, "disqualify", str(tid), name)
        assert code == 2 and "--reason" in err  # argparse: the reason is required
        code, out, err = await samedeal(
            env, "disqualify", str(tid), name, "--reason", "shared line"
        )
        assert code == 0 and out == f"tournament {tid}: {name} disqualified\n", err
        code, _, err = await samedeal(env, "disqualify", str(tid), name, "--reason", "again")
        assert code == 1 and "bad_request" in err and "already" in err
        code, out, _ = await samedeal(env, "standings", str(tid), "--json")
        rows = json.loads(out)["rows"]
        assert rows[-1]["player"] == name and rows[-1]["rank"] is None
        assert rows[-1]["disqualified"] == "shared line"

        code, out, err = await samedeal(env, "fairplay", str(tid))
        assert code == 0, err
        lines = out.splitlines()
        assert lines[-1].endswith("findings (pointers for the organiser, not verdicts)")
        # `samedeal bot`'s players act as fast as the server answers, on new accounts
        assert any(line.startswith("fast ") and "(under 150 ms)" in line for line in lines), out
        code, out, _ = await samedeal(env, "fairplay", str(tid), "--json", "--moves", "1")
        found = [json.loads(line) for line in out.splitlines()]
        assert {f["kind"] for f in found} >= {"fast", "new_account", "same_opening"}
        assert all(set(f) == {"kind", "players", "why", "why_params", "figures"} for f in found)


async def test_samedeal_server_disqualify_after_the_close(sqlite_url) -> None:
    clock = Clock(datetime.now(UTC))
    async with running_server(sqlite_url, clock) as srv:
        op = await srv.admin("op")
        from tests.support.harness import open_now

        tid = (await op.ok(**open_now(starts_at=clock().isoformat())))["tournament"]["id"]
        for name in ("ann", "bob"):
            async with srv.client() as c:
                reg = await c.ok(type="register", name=name)
                await c.ok(type="auth", token=reg["token"])
                state = await c.ok(type="join", tournament=tid)
                await c.ok(
                    type="act",
                    tournament=tid,
                    seq=1,
                    action={"kind": "move", **state["view"]["legal"][0]},
                )
    store = await Store.open(sqlite_url)
    try:
        await Competition.build(store).lifecycle.close(tid)
    finally:
        await store.close()
    run = await asyncio.to_thread(
        cli, sqlite_url, "disqualify", str(tid), "ann", "--reason", "a solver"
    )
    assert run.returncode == 0, run.stderr
    assert (
        run.stdout.strip()
        == f"tournament {tid}: ann disqualified (an amendment: ratings computed again)"
    )
    run = await asyncio.to_thread(cli, sqlite_url, "disqualify", str(tid), "zed", "--reason", "x")
    assert run.returncode == 1 and "not_found" in run.stderr
    run = await asyncio.to_thread(cli, sqlite_url, "fairplay", "report", str(tid), "--json")
    assert run.returncode == 0, run.stderr
    kinds = {json.loads(line)["kind"] for line in run.stdout.splitlines()}
    assert "new_account" in kinds
    run = await asyncio.to_thread(cli, sqlite_url, "fairplay", "report", str(tid), "--moves", "1")
    assert run.returncode == 0 and "same_opening" in run.stdout and "ann, bob" in run.stdout
    store = await Store.open(sqlite_url)
    try:
        bundle = await Competition.build(store).exports.bundle(tid)
    finally:
        await store.close()
    assert bundle["amendments"][0]["player"] == "ann"
    assert verify_document(bundle).ok
