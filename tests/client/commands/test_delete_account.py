"""`samedeal delete-account` (v1.4) as a user runs it, then `samedeal bundle` and
`samedeal verify` of a tournament the deleted player had played: the bundle carries the
pseudonym and an erasure, and verifies. In process: nothing is deleted unless the
name is typed again, and the saved token goes with the account."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

from client_cli import config
from client_cli.commands import delete_account
from client_cli.commands.registry import build_parser
from server.i18n.terminal import t
from tests.client.commands.conftest import URL
from tests.support.harness import Clock, create_msg, running_server
from tests.support.processes import samedeal

ANN = {"type": "authed", "player": {"name": "ann", "id": 4}}


def run_typing(typed: str, monkeypatch) -> tuple[int, str]:
    monkeypatch.setattr("sys.stdin", io.StringIO(typed))
    out = io.StringIO()
    args = build_parser().parse_args(["--server", URL, "delete-account"])
    return delete_account.run(args, out), out.getvalue()


def test_another_name_typed_deletes_nothing(scripted, monkeypatch, capsys) -> None:
    config.save_token(URL, "ann", "tok")
    conn = scripted({"auth": ANN})
    code, out = run_typing("Anne\n", monkeypatch)
    assert code == 2 and out == t("cli.delete.ask", name="ann")
    assert capsys.readouterr().err == f"samedeal: {t('cli.delete.mismatch', name='ann')}\n"
    assert conn.of("delete_account") == [] and config.token_for(URL) == ("ann", "tok")


def test_the_name_typed_again_deletes_and_forgets_the_token(scripted, monkeypatch) -> None:
    config.save_token(URL, "ann", "tok")
    conn = scripted({"auth": ANN, "delete_account": {"type": "account_deleted"}})
    code, out = run_typing("ann\n", monkeypatch)
    assert code == 0 and conn.of("delete_account") == [{"type": "delete_account", "confirm": "ann"}]
    assert out.endswith(t("cli.delete.done", id=4, server=URL) + "\n")
    assert config.token_for(URL) is None


async def test_delete_account_then_verify_an_affected_bundle(sqlite_url, tmp_path: Path) -> None:
    async with running_server(sqlite_url, Clock()) as srv:
        env = {
            **os.environ,
            "XDG_CONFIG_HOME": str(tmp_path / "cfg"),
            "SAMEDEAL_SERVER": srv.ws_url,
        }
        op = await srv.admin()
        tid = (await op.ok(**create_msg()))["tournament"]["id"]
        code, out, err = await samedeal(env, "register", "Quim")
        assert code == 0, err
        token = json.loads((tmp_path / "cfg" / "samedeal" / "tokens.json").read_text())
        async with srv.client() as quim, srv.client() as rui:
            me = await quim.ok(type="auth", token=token[srv.ws_url]["token"])
            await rui.ok(type="register", name="rui")
            for c in (quim, rui):
                await c.ok(type="join", tournament=tid)
                await c.ok(type="act", tournament=tid, seq=1, action={"kind": "resign"})
        await op.ok(type="close_tournament", tournament=tid)

        code, _, err = await samedeal(env, "delete-account", stdin=b"quim\n")
        assert code == 2 and "nothing was deleted" in err  # the name exactly
        code, out, err = await samedeal(env, "delete-account", stdin=b"Quim\n")
        pid = me["player"]["id"]
        assert code == 0 and f"deleted-{pid}" in out, err
        assert srv.ws_url not in json.loads(
            (tmp_path / "cfg" / "samedeal" / "tokens.json").read_text()
        )

        bundle = tmp_path / "bundle.json"
        code, _, err = await samedeal(env, "bundle", str(tid), "-o", str(bundle))
        assert code == 0, err
        doc = json.loads(bundle.read_text())
        assert doc["amendments"][0] == {
            "kind": "erasure",
            "player_id": pid,
            "at": doc["amendments"][0]["at"],
        }
        assert "Quim" not in bundle.read_text()
        code, out, err = await samedeal(env, "verify", str(bundle))
        assert code == 0 and "verified" in out and "deleted accounts: 1 erased" in out, out + err
        code, _, _ = await samedeal(env, "register", "QUIM")
        assert code == 1
