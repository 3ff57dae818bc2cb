"""client_cli/commands/common.py: every way a command fails is one line and a status."""

from __future__ import annotations

import pytest

from client_cli.commands.common import CliError, known_beacon, run_async, run_command
from client_cli.connection import ServerError
from server.i18n import terminal
from server.i18n.terminal import said_error


async def refused() -> int:
    raise ServerError({"type": "error", "code": "forbidden", "message": "admins only"})


async def wrong() -> int:
    raise CliError("no token saved", code=2)


async def unreachable() -> int:
    raise ConnectionRefusedError(111, "Connection refused")


async def fine() -> int:
    return 0


def test_each_failure_is_one_line_and_a_status(capsys: pytest.CaptureFixture[str]) -> None:
    server = "ws://127.0.0.1:1/ws"
    assert run_command(refused(), server) == 1
    assert capsys.readouterr().err == "samedeal: forbidden: admins only\n"
    assert run_command(wrong(), server) == 2
    assert capsys.readouterr().err == "samedeal: no token saved\n"
    assert run_command(unreachable(), server) == 1
    err = capsys.readouterr().err
    assert err.startswith("samedeal: ") and err.count("\n") == 1 and "127.0.0.1:1" in err
    assert run_async(fine(), server) == 0


def test_known_beacon() -> None:
    assert known_beacon(None, None) is None
    assert known_beacon("quicknet", None) == {"network": "quicknet"}
    with pytest.raises(ValueError, match="nowhere"):
        known_beacon("nowhere", None)


def test_known_beacon_keeps_the_said_for_the_language() -> None:
    terminal.choose("es")
    try:
        with pytest.raises(ValueError) as caught:
            known_beacon("nowhere", None)
        assert said_error(caught.value) != str(caught.value)  # said again in Spanish
        assert "nowhere" in said_error(caught.value)
    finally:
        terminal.choose("en")
