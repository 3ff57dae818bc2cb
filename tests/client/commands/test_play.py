"""client_cli/commands/play.py: `samedeal play ID` joins with the saved token first, so
every reason it cannot play is one line before the full screen opens; then the screen
(client_cli/tui/app.py, tests/client/tui/test_app.py) gets the token and what the join
carried, and its failure is the command's."""

from __future__ import annotations

import io
from typing import Any, ClassVar

import pytest

from client_cli import config
from client_cli.commands import play
from client_cli.commands.registry import build_parser
from client_cli.tui import app
from tests.client.commands.conftest import URL


def args(*argv: str) -> Any:
    return build_parser().parse_args(["--server", URL, "play", *argv])


class Screen:
    """Stands in for PlayApp: keeps what it was opened with, fails as told."""

    opened: ClassVar[list[tuple[Any, ...]]] = []
    failure: str | None = None

    def __init__(self, url: str, token: str, tid: int, *, receipts: Any, join: Any) -> None:
        Screen.opened.append((url, token, tid, join))

    def run(self) -> None:
        return None


@pytest.fixture
def screen(monkeypatch: pytest.MonkeyPatch) -> type[Screen]:
    Screen.opened, Screen.failure = [], None
    monkeypatch.setattr(app, "PlayApp", Screen)
    return Screen


def test_join_carries_the_code_and_the_club_only_when_given() -> None:
    assert play.join_fields(args("3")) == {}
    assert play.join_fields(args("3", "--code", "K9", "--club", "4")) == {"code": "K9", "club": 4}


def test_a_refused_join_is_one_line_and_no_screen(scripted, screen, capsys) -> None:
    config.save_token(URL, "ann", "tok")
    closed = {"type": "error", "code": "tournament_closed", "message": "closed"}
    conn = scripted({"join": closed})
    assert play.run(args("3", "--code", "K9"), io.StringIO()) == 1
    assert conn.of("join") == [{"type": "join", "tournament": 3, "code": "K9"}]
    assert capsys.readouterr().err == "samedeal: tournament_closed: closed\n"
    assert screen.opened == []


def test_the_screen_opens_with_the_token_and_its_failure_is_said(scripted, screen, capsys) -> None:
    config.save_token(URL, "ann", "tok")
    scripted({"join": {"type": "joined"}})
    assert play.run(args("3", "--club", "4"), io.StringIO()) == 0
    assert screen.opened == [(URL, "tok", 3, {"club": 4})]
    screen.failure = "connection lost"
    assert play.run(args("3"), io.StringIO()) == 1
    assert capsys.readouterr().err == "samedeal: connection lost\n"
