"""`samedeal login` (v1.4 accounts) as a user runs it, against a real server: a device
link approved from another signed-in device, and a token read from standard input; in
process (a scripted connection): the link's page, its polling, an expired link."""

from __future__ import annotations

import asyncio
import io
import json
import os
import pty
import select
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tests.support.harness import Clock, running_server
from tests.support.processes import samedeal, samedeal_started, until_printed


class WallClock(Clock):
    """The server on real time: the client's polls are paced by it."""

    def __call__(self) -> datetime:
        return datetime.now(UTC)


def _env(tmp_path: Path, server: str) -> dict[str, str]:
    return {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "cfg"), "SAMEDEAL_SERVER": server}


def _saved(tmp_path: Path) -> dict[str, dict[str, str]]:
    return json.loads((tmp_path / "cfg" / "samedeal" / "tokens.json").read_text())


async def test_login_links_the_terminal_after_approval_in_another_device(
    sqlite_url, tmp_path: Path
) -> None:
    async with running_server(sqlite_url, WallClock()) as srv:
        env = _env(tmp_path, srv.ws_url)
        proc = await samedeal_started(env, "login", "--label", "work laptop")
        found = await until_printed(proc, r"code ([A-Z]{4}-[A-Z]{4})")
        code, shown = found[1], found.string
        assert f"http://127.0.0.1:{srv.port}/account?code={code}" in shown
        assert "█" in shown or "▀" in shown  # the QR code, drawn in blocks
        async with srv.client() as phone:
            await phone.ok(type="register", name="nia", device="phone")
            approved = await phone.req(type="link_approve", code=code)
            assert approved["type"] == "link_approved", approved
            assert approved["device"]["label"] == "work laptop"
            rest, err = await asyncio.wait_for(proc.communicate(), 60)
            assert proc.returncode == 0, err
            assert "signed in as nia (device work laptop)" in rest.decode()
            listed = (await phone.ok(type="devices"))["items"]
            assert [d["label"] for d in listed] == ["phone", "work laptop"]
        saved = _saved(tmp_path)[srv.ws_url]
        assert saved["name"] == "nia"
        async with srv.client() as terminal:
            authed = await terminal.ok(type="auth", token=saved["token"])
            assert authed["device"]["kind"] == "link"


async def test_login_token_reads_standard_input_only(sqlite_url, tmp_path: Path) -> None:
    async with running_server(sqlite_url) as srv:
        async with srv.client() as browser:
            token = (await browser.ok(type="register", name="oli"))["token"]
        env = _env(tmp_path, srv.ws_url)

        async def login(stdin: bytes, *more: str) -> tuple[int, str, str]:
            return await samedeal(env, "login", "--token", *more, stdin=stdin)

        status, _, err = await login(b"not-a-token\n")
        assert status == 1 and "unauthorized" in err
        assert not (tmp_path / "cfg" / "samedeal" / "tokens.json").exists()
        status, out, err = await login(token.encode() + b"\n")
        assert status == 0 and "signed in as oli" in out, err
        assert "Token" not in err  # piped: no prompt
        assert _saved(tmp_path)[srv.ws_url] == {"name": "oli", "token": token}
        status, _, err = await login(token.encode() + b"\n")
        assert status == 2 and "--replace" in err  # a saved token is not replaced silently
        status, _, err = await login(b"\n", "--replace")
        assert status == 1 and "no token" in err


async def test_login_token_at_a_terminal_prompts_on_stderr(sqlite_url, tmp_path: Path) -> None:
    """Standard input a terminal (a pseudo-terminal here): a short prompt on stderr, the
    token typed is not echoed, and it signs in as piped."""
    async with running_server(sqlite_url) as srv:
        async with srv.client() as browser:
            token = (await browser.ok(type="register", name="pia"))["token"]
        main, sub = pty.openpty()
        try:
            proc = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "client_cli",
                "login",
                "--token",
                env=_env(tmp_path, srv.ws_url),
                stdin=sub,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                start_new_session=True,  # no controlling terminal: getpass reads stdin
            )
            assert proc.stderr is not None
            prompt = await asyncio.wait_for(proc.stderr.readuntil(b": "), 60)
            assert prompt.decode().strip() == "Token (not shown):"
            os.write(main, token.encode() + b"\n")
            out, err = await asyncio.wait_for(proc.communicate(), 60)
            echoed = os.read(main, 4096) if select.select([main], [], [], 0)[0] else b""
        finally:
            os.close(main)
            os.close(sub)
        assert proc.returncode == 0 and b"signed in as pia" in out, err
        assert token.encode() not in echoed
        assert _saved(tmp_path)[srv.ws_url] == {"name": "pia", "token": token}


def test_the_default_device_label_is_in_the_language() -> None:
    import socket

    from client_cli.commands.login import _default_label
    from server.i18n import terminal

    terminal.choose("es")
    try:
        assert _default_label() == f"terminal en {socket.gethostname()}"[:64]
    finally:
        terminal.choose("en")


# -- in process (a scripted connection) ---------------------------------------------------
LINK = {"code": "AB CD", "expires_at": "2026-12-02T11:00:00Z", "interval_s": 0, "poll": "p1"}
LINKED = {"player": {"name": "ann"}, "token": "tok", "device": {"label": "", "id": 3}}


def run_login(*argv: str) -> tuple[int, str]:
    from client_cli.commands import login
    from client_cli.commands.registry import build_parser
    from tests.client.commands.conftest import URL

    out = io.StringIO()
    return login.run(build_parser().parse_args(["--server", URL, "login", *argv]), out), (
        out.getvalue()
    )


def test_the_approval_page_is_the_servers_account_page() -> None:
    from client_cli.commands.login import approval_url

    assert approval_url("wss://h.example/ws", "AB CD") == "https://h.example/account?code=AB%20CD"
    assert approval_url("ws://127.0.0.1:8765/ws", "X") == "http://127.0.0.1:8765/account?code=X"


def test_a_link_is_polled_until_approved_and_its_token_saved(scripted) -> None:
    from client_cli import config
    from client_cli.commands import login
    from tests.client.commands.conftest import URL

    polls: list[str] = []

    def poll(msg: dict[str, Any]) -> dict[str, Any]:
        polls.append(msg["poll"])
        pending = {"type": "error", "code": "authorization_pending"}
        return pending if len(polls) < 3 else {"type": "linked", **LINKED}

    conn = scripted({"link_start": LINK, "link_poll": poll}, login)
    code, out = run_login("--label", "laptop")
    assert code == 0 and polls == ["p1"] * 3 and config.token_for(URL) == ("ann", "tok")
    assert conn.of("link_start") == [{"type": "link_start", "label": "laptop"}]
    assert "https://" not in out and "http://127.0.0.1:9/account?code=AB%20CD" in out


def test_an_expired_link_saves_nothing(scripted, capsys) -> None:
    from client_cli import config
    from client_cli.commands import login
    from tests.client.commands.conftest import URL

    expired = {"type": "error", "code": "expired"}
    scripted({"link_start": LINK, "link_poll": expired}, login)
    assert run_login()[0] == 1 and config.token_for(URL) is None
    assert capsys.readouterr().err == f"samedeal: {login.TEXTS['expired']}\n"


def test_a_token_is_read_from_standard_input_and_checked(scripted, monkeypatch) -> None:
    from client_cli import config
    from client_cli.commands import login
    from tests.client.commands.conftest import URL

    monkeypatch.setattr("sys.stdin", io.StringIO("tok\n"))
    authed = {"type": "authed", "player": {"name": "ann"}, "device": {"label": "pc", "id": 1}}
    conn = scripted({"auth": authed}, login)
    assert run_login("--token")[0] == 0 and config.token_for(URL) == ("ann", "tok")
    assert conn.sent == [{"type": "auth", "token": "tok"}]
