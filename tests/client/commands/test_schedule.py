"""`samedeal schedule ...` and `samedeal-server schedule ...` as an organiser runs them:
human spans and times, named game options, one-line errors, help on every flag. In
process: list is public (signed in when a token is saved), cancel needs the token."""

from __future__ import annotations

import io
import json
import os
from datetime import UTC, datetime
from pathlib import Path

import pytest

from client_cli import config
from client_cli.commands import schedule
from client_cli.commands.registry import build_parser
from server.domain import timing
from server.i18n.terminal import t
from tests.client.commands.conftest import URL
from tests.support.harness import Clock, running_server
from tests.support.processes import cli, samedeal


def run_schedule(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    code = schedule.run(build_parser().parse_args(["--server", URL, "schedule", *argv]), out)
    return code, out.getvalue()


def test_list_is_public_and_signed_in_when_a_token_is_saved(scripted) -> None:
    conn = scripted({"schedules": {"type": "schedules", "items": [{"id": 2}]}}, schedule)
    assert run_schedule("list", "--json") == (0, '[\n {\n  "id": 2\n }\n]\n')
    assert conn.token is None
    config.save_token(URL, "op", "tok")
    assert run_schedule("list", "--json")[0] == 0 and conn.token == "tok"
    assert [m["type"] for m in conn.sent] == ["schedules", "schedules"]


def test_cancel_needs_the_saved_token_and_answers_the_schedule(scripted) -> None:
    cancelled = {"id": 2, "name": "Nightly", "cancelled": True}
    conn = scripted({"cancel_schedule": {"type": "schedule", "schedule": cancelled}}, schedule)
    with pytest.raises(SystemExit) as exited:
        run_schedule("cancel", "2")
    assert exited.value.code == f"samedeal: {t('cli.no_token', server=URL)}" and conn.sent == []
    config.save_token(URL, "op", "tok")
    code, out = run_schedule("cancel", "2", "--json")
    assert code == 0 and json.loads(out) == cancelled
    assert conn.of("cancel_schedule") == [{"type": "cancel_schedule", "schedule": 2}]


async def test_an_organiser_schedules_lists_and_cancels_over_the_protocol(
    sqlite_url, tmp_path: Path
) -> None:
    async with running_server(sqlite_url, Clock(datetime.now(UTC))) as srv:
        env = {
            **os.environ,
            "XDG_CONFIG_HOME": str(tmp_path / "cfg"),
            "SAMEDEAL_SERVER": srv.ws_url,
        }
        code, _, _ = await samedeal(env, "register", "organiser")
        assert code == 0
        await srv.app.store.set_admin("organiser")
        code, out, err = await samedeal(
            env, "schedule", "create", "--json", "--name", "Daily Klondike", "--game", "klondike",
            "--at", "18:00Z", "--every", "1d", "--duration", "1h", "--draw", "3",
            "--passes", "3", "--hints", "--join-for", "15m", "--no-bots",
        )  # fmt: skip
        assert code == 0, err
        made = json.loads(out)
        assert made["options"] == {"draw": 3, "passes": 3, "guaranteed": False, "hints": True}
        assert made["every_s"] == 86400 and made["duration_s"] == 3600
        assert made["join_for_s"] == 900 and made["conditions"] == {"bots": False}
        first = timing.parse_iso(made["first_starts_at"])
        assert (first.hour, first.minute) == (18, 0) and first > datetime.now(UTC)
        assert (first - datetime.now(UTC)).total_seconds() <= 86400
        code, out, _ = await samedeal(env, "schedule", "list")
        assert code == 0 and "Daily Klondike #1" in out and "every 1d, 1h each" in out
        code, out, err = await samedeal(
            env, "schedule", "create", "--json", "--name", "X", "--at", "18:00Z", "--draw", "3"
        )
        assert code == 2 and err.strip() == "samedeal: --draw is an option of klondike, not of gaps"
        code, _, err = await samedeal(
            env, "schedule", "create", "--json", "--name", "X", "--at", "6pm"
        )
        assert code == 2 and "--at is a time like 18:00, 21:00-03:00" in err
        code, _, err = await samedeal(
            env, "schedule", "create", "--json", "--name", "X", "--at", "18:00Z", "--every", "30s"
        )
        assert code == 1 and "every_s" in err  # the server's refusal
        code, out, _ = await samedeal(env, "schedule", "cancel", "--json", str(made["id"]))
        assert code == 0 and json.loads(out)["cancelled"] is True
        code, out, _ = await samedeal(env, "schedule", "list", "--json")
        assert [s["cancelled"] for s in json.loads(out)] == [True]


def test_the_server_command_line_schedules_on_the_database(sqlite_url) -> None:
    # the operator's commands open an existing database only (migrate or serve makes it)
    assert cli(sqlite_url, "migrate").returncode == 0
    done = cli(
        sqlite_url, "schedule", "create", "--json", "--name", "Hourly", "--at",
        "2099-01-01T00:00:00Z", "--every", "1h", "--duration", "45m", "--redeals", "1",
        "--min-account-age", "1d", "--min-rated", "3",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    made = json.loads(done.stdout)
    assert (
        made["options"] == {"redeals": 1, "redeal": "keep_runs", "winnable": False}
        and made["every_s"] == 3600
    )
    assert made["conditions"] == {"min_account_age_s": 86400, "min_rated": 3}
    listed = cli(sqlite_url, "schedule", "list", "--json")
    assert [json.loads(line)["name"] for line in listed.stdout.splitlines()] == ["Hourly"]
    bad = cli(
        sqlite_url, "schedule", "create", "--json", "--name", "X", "--at", "18:00Z", "--every", "1w"
    )
    assert bad.returncode == 2
    assert bad.stderr.strip().splitlines()[-1] == (
        "samedeal-server: --every is a span like 1d, 12h, 90m, 60s or 1h30m, not '1w'"
    )
    variant = cli(
        sqlite_url, "schedule", "create", "--json", "--name", "Addicts",
        "--at", "2099-01-01T00:00:00Z", "--variant", "addiction",
    )  # fmt: skip
    assert variant.returncode == 0, variant.stderr
    assert json.loads(variant.stdout)["options"] == {
        "variant": "addiction", "redeals": 3, "redeal": "keep_runs", "winnable": False,
    }  # fmt: skip
    refused = cli(
        sqlite_url, "schedule", "create", "--json", "--name", "No", "--at", "2099-01-01T00:00:00Z",
        "--variant", "montana", "--options", '{"redeal": "reshuffle_all"}',
    )  # fmt: skip
    assert refused.returncode == 1 and refused.stderr.count("\n") == 1, refused.stderr
    assert "bad_request" in refused.stderr and "redeal: variant montana allows only" in (
        refused.stderr
    )
    assert cli(sqlite_url, "schedule", "cancel", "99").returncode == 1
    cancelled = cli(sqlite_url, "schedule", "cancel", "1", "--json")
    assert json.loads(cancelled.stdout)["cancelled"] is True


def test_every_schedule_flag_has_help() -> None:
    import argparse

    from client_cli.__main__ import build_parser as client_parser
    from server.cli.registry import build_parser as server_parser

    for build in (client_parser, server_parser):
        top = build()
        sub = next(a for a in top._actions if isinstance(a, argparse._SubParsersAction))
        schedule = sub.choices["schedule"]
        inner = next(a for a in schedule._actions if isinstance(a, argparse._SubParsersAction))
        for name, parser in inner.choices.items():
            for action in parser._actions:
                if action.dest != "help":
                    assert action.help, (build.__module__, name, action.dest)
