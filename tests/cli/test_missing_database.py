"""Issue 39: an operator's command run where there is no database (another folder, a
mistyped --database-url) refuses in one line naming the file it looked for, and creates
nothing; only `serve` and `migrate` create the database. -v/--verbose says in one line
which database a command opens."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from server.__main__ import main

OPERATOR_COMMANDS = [
    ["admin", "grant", "ana"],
    ["tournament", "create", "--name", "Cup"],
    ["tournament", "close", "1"],
    ["tournament", "list"],
    ["ratings", "rebuild"],
    ["disqualify", "1", "ana", "--reason", "bot"],
    ["fairplay", "report", "1"],
    ["schedule", "create", "--name", "Daily", "--every", "1d", "--at", "18:00Z"],
    ["schedule", "list"],
    ["schedule", "cancel", "1"],
]


def samedeal_server(cwd: Path, *argv: str, lang: str = "C") -> subprocess.CompletedProcess[str]:
    skip = ("SAMEDEAL_DATABASE_URL", "LC_ALL", "LC_MESSAGES", "LANG")
    env = {k: v for k, v in os.environ.items() if k not in skip}
    return subprocess.run(
        [sys.executable, "-m", "server", *argv],
        cwd=cwd,
        env={**env, "LANG": lang, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_an_operator_command_in_a_folder_without_a_database_refuses(tmp_path: Path) -> None:
    done = samedeal_server(tmp_path, "admin", "grant", "ana")
    assert (done.returncode, done.stdout) == (1, ""), done.stderr
    assert done.stderr.count("\n") == 1, done.stderr
    assert f"no such database: SQLite file {tmp_path / 'samedeal.db'}" in done.stderr
    assert "samedeal-server migrate" in done.stderr
    assert list(tmp_path.iterdir()) == []  # nothing created
    done = samedeal_server(tmp_path, "tournament", "list", lang="pt_PT.UTF-8")
    assert done.returncode == 1 and "base de dados inexistente: ficheiro SQLite " in done.stderr


def test_migrate_creates_it_and_verbose_names_it(tmp_path: Path) -> None:
    done = samedeal_server(tmp_path, "migrate", "-v")
    assert done.returncode == 0, done.stderr
    assert (
        done.stderr == f"samedeal-server: database: SQLite file {tmp_path / 'samedeal.db'}"
        " (the default: samedeal.db in the current directory; --database-url to choose)\n"
    )
    done = samedeal_server(tmp_path, "--verbose", "admin", "grant", "ana")
    lines = done.stderr.splitlines()
    assert done.returncode == 1 and len(lines) == 2, done.stderr
    assert lines[0].startswith("samedeal-server: database: SQLite file")
    assert "no player named 'ana'" in lines[1]  # the database was there: the real refusal


@pytest.mark.parametrize("argv", OPERATOR_COMMANDS, ids=" ".join)
def test_every_operator_command_refuses_a_missing_file(
    argv: list[str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(name, raising=False)
    url = f"sqlite+aiosqlite:///{tmp_path / 'nowhere.db'}"
    assert main(["--database-url", url, *argv]) == 1
    err = capsys.readouterr().err
    assert err == (
        f"samedeal-server: no such database: SQLite file {tmp_path / 'nowhere.db'}; "
        "`samedeal-server migrate` (or serve) creates it\n"
    )
    assert list(tmp_path.iterdir()) == []
