"""client_cli/commands/operator.py: `samedeal create` sends the tournament its flags
describe and `samedeal close ID` closes one, both signed in with the saved token, the
answer in words or as JSON; a bad flag is refused before anything is sent (over a real
server: tests/client/test_variants_wire.py, tests/e2e)."""

from __future__ import annotations

import io
import json
from datetime import UTC, datetime, timedelta
from typing import Any

from client_cli import config
from client_cli.commands import operator
from client_cli.commands.registry import build_parser
from server.domain.organiser_words import tournament_line
from server.i18n.terminal import t
from tests.client.commands.conftest import URL

SUMMARY: dict[str, Any] = {
    "id": 5,
    "name": "Cup",
    "game": "gaps",
    "options": None,
    "status": "open",
    "starts_at": "2026-12-02T10:00:00Z",
    "ends_at": "2026-12-02T12:00:00Z",
    "commitment": "c0" * 32,
}


def run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    code = operator.run(build_parser().parse_args(["--server", URL, *argv]), out)
    return code, out.getvalue()


def test_create_sends_what_the_flags_say_signed_in_and_prints_its_line(scripted) -> None:
    config.save_token(URL, "ann", "tok")
    conn = scripted({"create_tournament": {"type": "tournament", "tournament": SUMMARY}})
    before = datetime.now(UTC)
    code, out = run("create", "--name", "Cup", "--hours", "2", "--time-limit-s", "300")
    assert code == 0 and out == tournament_line("en", SUMMARY) + "\n"
    assert conn.sent[0] == {"type": "auth", "token": "tok"}
    [sent] = conn.of("create_tournament")
    assert (sent["name"], sent["game"], sent["time_limit_s"]) == ("Cup", "gaps", 300)
    ends = datetime.fromisoformat(sent["ends_at"]) - before
    assert timedelta(hours=2) <= ends < timedelta(hours=2, minutes=1)


def test_close_answers_the_summary_as_json(scripted) -> None:
    config.save_token(URL, "ann", "tok")
    closed = {**SUMMARY, "status": "closed"}
    conn = scripted({"close_tournament": {"type": "tournament", "tournament": closed}})
    code, out = run("close", "5", "--json")
    assert code == 0 and json.loads(out) == closed
    assert conn.of("close_tournament") == [{"type": "close_tournament", "tournament": 5}]


def test_a_bad_flag_is_status_2_in_one_line_and_nothing_is_sent(scripted, capsys) -> None:
    config.save_token(URL, "ann", "tok")
    conn = scripted({})
    assert run("create", "--name", "Cup", "--hours", "-1")[0] == 2
    err = capsys.readouterr().err
    assert err.startswith("samedeal: ") and err.count("\n") == 1 and "-1" in err
    assert conn.sent == []


def test_without_a_saved_token_it_says_so(scripted, capsys) -> None:
    conn = scripted({})
    assert run("close", "5")[0] == 1
    assert capsys.readouterr().err == f"samedeal: {t('cli.no_token', server=URL)}\n"
    assert conn.of("close_tournament") == []
