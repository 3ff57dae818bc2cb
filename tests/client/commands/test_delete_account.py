"""`samedeal delete-account` (v1.4) as a user runs it, then `samedeal bundle` and
`samedeal verify` of a tournament the deleted player had played: the bundle carries the
pseudonym and an erasure, and verifies."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.support.harness import Clock, create_msg, running_server
from tests.support.processes import samedeal


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
