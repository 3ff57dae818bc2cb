"""client_cli/commands/bot.py: `samedeal bot` checks its flags and that the tournament is
open before any bot connects, then prints a line per bot and fails when one ended in an
error (the bots themselves: tests/client/test_bots.py)."""

from __future__ import annotations

import io
from typing import Any

import pytest

from client_cli.bots import BotResult
from client_cli.commands import bot
from client_cli.commands.registry import build_parser
from server.i18n.terminal import t
from tests.client.commands.conftest import URL

LISTED = {
    "type": "tournaments",
    "items": [{"id": 1, "status": "open"}, {"id": 2, "status": "closed"}],
}


def run(*argv: str) -> tuple[int, list[str]]:
    out = io.StringIO()
    code = bot.run(build_parser().parse_args(["--server", URL, "bot", *argv]), out)
    return code, out.getvalue().splitlines()


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, ...]]:
    """The bots' runs asked for; each run ends with `won` and `error: x`."""
    asked: list[tuple[Any, ...]] = []

    async def fake_run_bots(url: str, tid: int, n: int, strategy: str, think: int, **kw: Any):
        asked.append((url, tid, n, strategy, think))
        return [
            BotResult("b1", "won", {"placed": 48}, 60, 0, 10),
            BotResult("b2", "error: x", {}, 3, 1, 10),
        ]

    monkeypatch.setattr(bot, "run_bots", fake_run_bots)
    return asked


def test_a_line_per_bot_and_status_1_when_one_erred(scripted, started) -> None:
    scripted({"tournaments": LISTED}, bot)
    code, lines = run("--tournament", "1", "--players", "2", "--strategy", "random")
    assert code == 1 and started == [(URL, 1, 2, "random", 0)]
    assert lines[0].split()[:2] == ["b1", t("cli.status.won")] and '{"placed": 48}' in lines[0]
    assert lines[1].startswith("b2") and "error: x" in lines[1]


@pytest.mark.parametrize(
    ("tid", "why"),
    [(2, t("cli.bot.it_is", status=t("cli.status.closed"))), (9, t("cli.bot.no_tournament"))],
)
def test_a_tournament_not_open_is_said_and_no_bot_starts(
    scripted, started, capsys, tid: int, why: str
) -> None:
    scripted({"tournaments": LISTED}, bot)
    assert run("--tournament", str(tid))[0] == 1 and started == []
    said = t("cli.bot.cannot_play", id=tid, why=why)
    assert capsys.readouterr().err == f"samedeal: {said}\n"


def test_bad_flags_are_status_2_before_connecting(scripted, started, capsys) -> None:
    conn = scripted({}, bot)
    assert run("--tournament", "1", "--players", "0")[0] == 2
    assert run("--tournament", "1", "--think-ms", "-5")[0] == 2
    assert conn.opened == [] and started == []
    assert capsys.readouterr().err == f"samedeal: {t('cli.bot.bad_flags')}\n" * 2
