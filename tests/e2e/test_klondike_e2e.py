"""Klondike over the wire: guaranteed deal, hints, moves, and no face-down card ever sent."""

from __future__ import annotations

import json
import random

from websockets.asyncio.client import connect

from server.audit.verify import verify_document
from server.games.klondike import KLONDIKE, KlondikeOptions
from tests.support.harness import Client, create_msg, running_server
from tests.support.klondike_play import hidden_codes, legal_actions


async def test_klondike_tournament_never_leaks_hidden_cards(sqlite_url) -> None:
    async with running_server(sqlite_url) as srv:
        op = await srv.admin()
        opts = {"draw": 3, "passes": None, "guaranteed": True, "hints": True}
        t = (await op.ok(**create_msg(game="klondike", options=opts)))["tournament"]
        tid = t["id"]
        assert t["guaranteed"] is True and "solution" not in json.dumps(t)
        rnd = random.Random(3)
        clients = []
        for name in ("kara", "kurt", "kim"):
            c = Client(await connect(srv.ws_url), srv.frames)
            await c.ok(type="register", name=name)
            st = await c.ok(type="join", tournament=tid)
            assert all(len(col["up"]) == 1 for col in st["view"]["tableau"])
            assert st["view"]["stock"] == 24 and st["progress"]["cards_home"] == 0
            for _ in range(40):
                if st["status"] != "playing":
                    break
                hint = await c.ok(type="hint", tournament=tid)
                assert hint["no_moves"] == (hint["action"] is None)
                if hint["action"] is not None and rnd.random() < 0.6:
                    action = hint["action"]
                else:
                    # a random legal action, found by the server's own rules on the view
                    action = rnd.choice(
                        [{"kind": "draw"}, {"kind": "auto"}, {"kind": "resign"}]
                        if rnd.random() < 0.05
                        else [{"kind": "draw"}]
                    )
                reply = await c.req(type="act", tournament=tid, seq=st["seq"] + 1, action=action)
                if reply["type"] == "error":
                    assert reply["code"] == "illegal_action", reply
                    continue
                st = reply
            clients.append((name, c))
        frames_before_close = list(srv.frames)
        closed = await op.ok(type="close_tournament", tournament=tid)
        seed_hex = closed["tournament"]["seed"]
        assert all(seed_hex not in f for f in frames_before_close)
        seed = bytes.fromhex(seed_hex)
        bundle = None
        async with srv.client() as reader:
            await reader.ok(type="register", name="auditor")
            for name, c in clients:
                rec = (await reader.ok(type="record", tournament=tid, player=name))["record"]
                assert rec["tournament"]["solution"] and rec["tournament"]["deal_attempt"] >= 0
                actions = [a["action"] for a in rec["actions"]]
                k_opts = KlondikeOptions(**opts)
                for raw in c.received:
                    msg = json.loads(raw)
                    if msg.get("type") != "state":
                        continue
                    hidden = hidden_codes(
                        seed, k_opts, rec["tournament"]["deal_attempt"], actions[: msg["seq"]]
                    )
                    text = json.dumps(msg)
                    leaked = [code for code in hidden if f'"{code}"' in text]
                    assert not leaked, (name, msg["seq"], leaked)
            bundle = await srv.app.competition.exports.bundle(tid)
        report = verify_document(bundle)
        assert report.ok, report.error
        assert any("stored solution" in line for line in report.checked)
        for _, c in clients:
            await c.close()
        await op.close()


def test_legal_actions_helper_is_sane() -> None:
    state = KLONDIKE.new_game(bytes(32), KlondikeOptions(), player_id=1)
    legal = legal_actions(state)
    assert {"kind": "draw"} in legal
