"""Issue 39: one vocabulary for both command lines. `samedeal create`, `samedeal schedule
create`, `samedeal-server tournament create` and `samedeal-server schedule create` take
the same flags and spans (--duration 90m, --time-limit 15m, --join-for, --redeals,
--variant, conditions); times with any UTC offset or in the local zone (TZ), shown in the
local zone; words by default, --json for scripts (UTF-8, not escaped). Subprocesses with
TZ set, on a SQLite file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from client_cli.commands.registry import build_parser as client_parser
from server.cli.registry import build_parser as server_parser
from server.domain.schedule_options import schedule_from
from server.domain.tournament_options import request_from

SHARED = [
    "--name", "Clube Gaps rápido", "--at", "21:00-03:00", "--duration", "90m",
    "--time-limit", "15m", "--join-for", "30m", "--redeals", "1", "--variant", "montana",
    "--no-bots", "--min-rated", "2",
]  # fmt: skip


def server(db: Path, *argv: str, tz: str, lang: str = "C") -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("LC_ALL", "LC_MESSAGES", "LANG")}
    return subprocess.run(
        [sys.executable, "-m", "server", "--database-url", f"sqlite:///{db}", *argv],
        env={**env, "TZ": tz, "LANG": lang},
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=60,
    )


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "samedeal.db"
    done = server(path, "migrate", tz="UTC")
    assert done.returncode == 0, done.stderr
    return path


def test_both_command_lines_read_the_same_flags_alike() -> None:
    now = datetime(2026, 12, 2, 12, 0, tzinfo=UTC)
    client = request_from(client_parser().parse_args(["create", *SHARED]), now)
    on_db = request_from(server_parser().parse_args(["tournament", "create", *SHARED]), now)
    assert client == on_db
    assert client.starts_at == datetime(2026, 12, 3, 0, 0, tzinfo=UTC)  # 21:00-03:00
    assert client.ends_at - client.starts_at == timedelta(minutes=90)
    assert client.join_until == client.starts_at + timedelta(minutes=30)
    assert client.time_limit_s == 900 and client.options == {"redeals": 1, "variant": "montana"}
    assert client.conditions == {"bots": False, "min_rated": 2}
    shared = ["--every", "1d", *SHARED]
    a = schedule_from(client_parser().parse_args(["schedule", "create", *shared]), now)
    b = schedule_from(server_parser().parse_args(["schedule", "create", *shared]), now)
    assert a == b and a.first_starts_at == client.starts_at
    assert (a.duration_s, a.time_limit_s, a.join_for_s) == (5400, 900, 1800)
    assert a.options == client.options and a.conditions == client.conditions


def test_words_by_default_in_the_local_zone_json_for_scripts(db: Path) -> None:
    done = server(db, "tournament", "create", *SHARED, tz="Europe/Lisbon")
    assert done.returncode == 0, done.stderr
    # 21:00 at UTC-3 is midnight in Lisbon (UTC+0 in winter): the organiser's own clock
    line = done.stdout.strip()
    assert line.startswith("#1 Clube Gaps rápido (Gaps · Montana, 1 redeal): scheduled, "), line
    assert " 00:00 WET – " in line and " 01:30 WET" in line, line
    assert "15m per game" in line and "entries until " in line and "commitment " in line
    listed = server(db, "tournament", "list", "--json", tz="America/Sao_Paulo")
    t = json.loads(listed.stdout)
    assert '"Clube Gaps rápido"' in listed.stdout  # UTF-8, not \u00e1
    assert t["starts_at"].endswith("T00:00:00.000Z") and t["time_limit_s"] == 900
    assert t["options"]["variant"] == "montana" and t["conditions"]["bots"] is False
    shown = server(db, "tournament", "list", tz="America/Sao_Paulo").stdout
    assert " 21:00 -03 – " in shown, shown  # the same tournament, another organiser's zone
    portuguese = server(db, "tournament", "list", tz="America/Sao_Paulo", lang="pt_BR.UTF-8")
    assert "agendado" in portuguese.stdout and "por partida" in portuguese.stdout


def test_a_time_without_an_offset_is_the_local_zone(db: Path) -> None:
    at = server(
        db, "tournament", "create", "--json", "--name", "Local", "--at", "2099-06-01T18:00",
        tz="America/Sao_Paulo",
    )  # fmt: skip
    assert at.returncode == 0, at.stderr
    assert json.loads(at.stdout)["starts_at"] == "2099-06-01T21:00:00.000Z"
    daily = server(
        db, "schedule", "create", "--name", "Série diária", "--at", "18:00",
        "--duration", "45m", "--every", "1d", tz="America/Sao_Paulo",
    )  # fmt: skip
    assert daily.returncode == 0, daily.stderr
    head = daily.stdout.splitlines()[0]
    assert head == "#1 Série diária (Gaps, 2 redeals): every 1d, 45m each", head
    assert " 18:00 -03" in daily.stdout
    listed = json.loads(server(db, "schedule", "list", "--json", tz="UTC").stdout)
    assert listed["first_starts_at"].endswith("T21:00:00.000Z")
