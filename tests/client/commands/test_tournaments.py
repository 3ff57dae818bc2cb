"""client_cli/commands/tournaments.py: `samedeal tournaments` lists what the server
answers, a line each under a header and a count, or the items as JSON; watching needs
no account, and a refused saved token is said and the list still comes anonymously."""

from __future__ import annotations

import io
import json
from typing import Any

from client_cli import config
from client_cli.commands import tournaments
from client_cli.commands.registry import build_parser
from server.i18n.terminal import t
from tests.client.commands.conftest import URL

ITEMS: list[dict[str, Any]] = [
    {
        "id": 3,
        "name": "A very long tournament name indeed",
        "game": "gaps",
        "status": "open",
        "entrants": 12,
        "starts_at": "2026-12-02T10:00:00Z",
        "ends_at": "2026-12-02T12:00:00Z",
    },
    {
        "id": 4,
        "name": "Next",
        "game": "klondike",
        "status": "scheduled",
        "entrants": 0,
        "starts_at": "2026-12-03T10:00:00Z",
        "ends_at": "2026-12-03T12:00:00Z",
    },
]


def run(*argv: str) -> tuple[int, list[str]]:
    out = io.StringIO()
    args = build_parser().parse_args(["--server", URL, "tournaments", *argv])
    return tournaments.run(args, out), out.getvalue().splitlines()


def test_a_line_per_tournament_under_a_header_and_a_count(scripted) -> None:
    conn = scripted({"tournaments": {"type": "tournaments", "items": ITEMS}})
    code, lines = run()
    assert code == 0 and len(lines) == 4
    assert t("cli.col.name") in lines[0] and t("cli.col.entrants") in lines[0]
    assert lines[1].split()[:2] == ["3", "A"] and "A very long tournament n " in lines[1]
    assert t("cli.status.open") in lines[1] and t("cli.status.scheduled") in lines[2]
    assert lines[3] == "2 tournaments"
    assert [m["type"] for m in conn.sent] == ["tournaments"]  # no token: anonymous


def test_json_is_the_items_as_answered(scripted) -> None:
    scripted({"tournaments": {"type": "tournaments", "items": ITEMS}})
    code, lines = run("--json")
    assert code == 0 and json.loads("\n".join(lines)) == ITEMS


def test_a_refused_token_is_said_and_the_list_comes_anyway(scripted, capsys) -> None:
    config.save_token(URL, "ann", "stale")
    refused = {"type": "error", "code": "unauthorized", "message": "no"}
    scripted({"auth": refused, "tournaments": {"type": "tournaments", "items": []}})
    code, lines = run()
    assert code == 0 and lines[-1] == "0 tournaments"
    refusal = t("cli.token_refused", server=URL, path=config.tokens_path())
    assert capsys.readouterr().err == t("cli.anonymous", why=refusal) + "\n"
