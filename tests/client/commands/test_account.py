"""client_cli/commands/account.py: `samedeal register NAME` saves the token the server
answers for it, and never replaces a kept one without --replace (a lost token cannot be
recovered)."""

from __future__ import annotations

import io

from client_cli import config
from client_cli.commands import account
from client_cli.commands.registry import build_parser
from server.i18n.terminal import t
from tests.client.commands.conftest import URL

REGISTERED = {"type": "registered", "player": {"name": "Ann", "id": 7}, "token": "new"}


def run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    args = build_parser().parse_args(["--server", URL, "register", *argv])
    return account.run(args, out), out.getvalue()


def test_register_saves_the_answered_name_and_token(scripted) -> None:
    conn = scripted({"register": REGISTERED}, account)
    code, out = run("ann")
    assert code == 0 and conn.sent == [{"type": "register", "name": "ann"}]
    assert config.token_for(URL) == ("Ann", "new")
    assert out == t("cli.register.done", name="Ann", id=7, path=config.tokens_path()) + "\n"


def test_a_kept_token_is_replaced_only_with_replace(scripted, capsys) -> None:
    config.save_token(URL, "old", "kept")
    conn = scripted({"register": REGISTERED}, account)
    assert run("ann")[0] == 2
    kept = t("cli.register.kept", kept="old", server=URL, name="ann", path=config.tokens_path())
    assert capsys.readouterr().err == f"samedeal: {kept}\n"
    assert conn.sent == [] and config.token_for(URL) == ("old", "kept")
    assert run("ann", "--replace")[0] == 0
    assert config.token_for(URL) == ("Ann", "new")
