"""Differential rules check: the server and the pure engine agree on every action.

Random games through the server, each action also applied to a local engine replay;
a share of the actions are drawn from the whole action space (mostly illegal). Both
must accept with the same result, or both refuse. SAMEDEAL_DIFF_GAMES raises the
number of games (default 40).
"""

from __future__ import annotations

import os
import random

from websockets.asyncio.client import connect

from server import rng
from server.games import RULES, cards
from server.games.base import ActionError
from tests.support.harness import Client, create_msg, running_server

GAMES = int(os.environ.get("SAMEDEAL_DIFF_GAMES", "40"))


def any_gaps_action(rnd: random.Random) -> dict:
    roll = rnd.random()
    if roll < 0.05:
        return {"kind": "redeal"}
    return {
        "kind": "move",
        "card": rnd.choice(cards.CODES),
        "to": [rnd.randrange(4), rnd.randrange(13)],
    }


async def test_server_and_engine_agree_move_by_move(sqlite_url) -> None:
    compared = refused = 0
    async with running_server(sqlite_url) as srv:
        op = await srv.admin()
        tid = (await op.ok(**create_msg()))["tournament"]["id"]
        seed = None
        rules = RULES["gaps"]
        for g in range(GAMES):
            rnd = random.Random(g)
            c = Client(await connect(srv.ws_url), srv.frames)
            reg = await c.ok(type="register", name=f"diff{g}")
            state = await c.ok(type="join", tournament=tid)
            if seed is None:
                seed = bytes.fromhex(await srv.app.store.secret_seed(tid))
                assert rng.commitment(seed)  # the test reads it from the store, never the wire
            local = rules.new_game(
                seed, rules.parse_options({"redeals": 2}), player_id=reg["player"]["id"]
            )
            for _ in range(120):
                if state["status"] != "playing":
                    break
                if rnd.random() < 0.5 and state["view"]["legal"]:
                    raw = {"kind": "move", **rnd.choice(state["view"]["legal"])}
                else:
                    raw = any_gaps_action(rnd)
                reply = await c.req(type="act", tournament=tid, seq=state["seq"] + 1, action=raw)
                try:
                    local_next, _ = local.apply(rules.parse_action(raw))
                except ActionError as exc:
                    assert reply["type"] == "error" and reply["code"] == "illegal_action", reply
                    assert reply["reason"] == exc.reason
                    refused += 1
                    continue
                assert reply["type"] == "state", (raw, reply)
                local = local_next
                assert reply["view"] == local.view()
                assert reply["progress"] == local.progress_view()
                assert reply["status"] == local.status.value
                state = reply
                compared += 1
            await c.close()
        await op.close()
    assert compared > 10 * GAMES and refused > 5 * GAMES
    print(
        f"\nfigures: {GAMES} games, {compared} accepted actions compared, {refused} refusals "
        "matched"
    )
