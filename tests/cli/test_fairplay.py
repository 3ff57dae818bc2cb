"""server/cli/fairplay.py: `disqualify` and `fairplay report` on the database (with play
and a running server: tests/client/commands/test_fairplay.py,
tests/e2e/test_fairplay_cli_live.py)."""

from __future__ import annotations

import json

from tests.cli.conftest import Server


def test_a_report_on_a_quiet_tournament_finds_nothing(server: Server) -> None:
    made = json.loads(server("tournament", "create", "--name", "Quiet", "--json")[1])
    code, out, _ = server("fairplay", "report", str(made["id"]))
    assert code == 0 and out == "0 findings (pointers for the organiser, not verdicts)\n"
    assert server("fairplay", "report", str(made["id"]), "--json") == (0, "", "")


def test_disqualifying_nobody_is_a_one_line_refusal(server: Server) -> None:
    made = json.loads(server("tournament", "create", "--name", "Quiet", "--json")[1])
    code, out, err = server("disqualify", str(made["id"]), "ghost", "--reason", "r")
    assert (code, out) == (1, "") and err.startswith("samedeal-server: ") and err.count("\n") == 1
