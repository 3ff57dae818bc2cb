"""`samedeal leaderboard GAME` and `samedeal player NAME` as a user runs them (real
processes against a real server, no token needed); in process, the tables they print."""

from __future__ import annotations

import json
import os
from pathlib import Path

from client_cli.commands.ratings import leaderboard_text, player_text
from server.competition import ratings
from tests.support.harness import create_msg, running_server
from tests.support.processes import samedeal


async def test_leaderboard_and_player_in_the_terminal(sqlite_url, tmp_path: Path) -> None:
    async with running_server(sqlite_url) as srv:
        op = await srv.admin("op")
        tid = (await op.ok(**create_msg(time_limit_s=None)))["tournament"]["id"]
        for name, moves, bot in (("ann", 4, False), ("bob", 0, False), ("robo", 2, True)):
            async with srv.client() as c:
                await c.ok(type="register", name=name, **({"bot": True} if bot else {}))
                state = await c.ok(type="join", tournament=tid)
                seq = 1
                for _ in range(moves):
                    if not state["view"]["legal"]:
                        break
                    action = {"kind": "move", **state["view"]["legal"][0]}
                    state = await c.ok(type="act", tournament=tid, seq=seq, action=action)
                    seq += 1
                await c.ok(type="act", tournament=tid, seq=seq, action={"kind": "resign"})
        await op.ok(type="close_tournament", tournament=tid)
        await op.close()
        await ratings.settle()  # the rating task of the server (in this process)
        env = {
            **os.environ,
            "XDG_CONFIG_HOME": str(tmp_path / "cfg"),
            "SAMEDEAL_SERVER": srv.ws_url,
        }

        code, out, err = await samedeal(env, "leaderboard", "gaps")
        assert code == 0, err
        assert out.startswith("gaps leaderboard — 2 rated players")
        lines = out.splitlines()
        assert lines[2].split()[0] == "1" and lines[3].split()[0] == "2"
        assert "robo" not in out and out.count("provisional") == 2
        code, out, _ = await samedeal(env, "leaderboard", "gaps", "--json", "--offset", "1")
        page = json.loads(out)
        assert page["total"] == 2 and [r["rank"] for r in page["rows"]] == [2]

        best = json.loads((await samedeal(env, "leaderboard", "gaps", "--json"))[1])["rows"][0]
        code, out, _ = await samedeal(env, "player", best["player"])
        assert code == 0 and out.startswith(best["player"])
        assert f"gaps      rating {best['rating']:.2f} (#1)" in out
        assert "recent results:" in out and f"{tid:>5} Friday Gaps" in out
        assert "streak in gaps:" in out
        code, out, _ = await samedeal(env, "player", "robo")
        assert code == 0 and "robo (bot)" in out and "bots never are" in out
        code, _, err = await samedeal(env, "player", "nobody")
        assert code == 1 and "not_found" in err
        code, _, err = await samedeal(env, "leaderboard", "chess")
        assert code == 2 and "invalid choice" in err


def test_the_leaderboard_table_marks_provisional_rows_and_says_what_it_means() -> None:
    row = {"rank": 1, "player": "ann", "rating": 1.5, "mu": 25.0, "sigma": 7.8333}
    msg = {"game": "gaps", "total": 1, "rows": [{**row, "tournaments": 2, "provisional": True}]}
    lines = leaderboard_text(msg).splitlines()
    assert lines[0] == "gaps leaderboard — 1 rated player"
    assert lines[2].split() == ["1", "ann", "1.50", "25.00", "7.83", "2", "provisional"]
    assert lines[-1].startswith("rating = mu - 3 sigma")
    empty = leaderboard_text({"game": "klondike", "total": 0, "rows": []}).splitlines()
    assert empty[2] == "  (nobody here)" and len(empty) == 4


def test_a_players_page_says_a_bot_is_never_rated_and_its_streaks() -> None:
    msg = {
        "player": {"name": "robo", "bot": True, "created_at": "2026-12-01T10:00:00Z"},
        "ratings": {},
        "streak": {"gaps": 3},
        "recent": [],
    }
    lines = player_text(msg).splitlines()
    assert lines[0].startswith("robo (bot) — registered ")
    assert lines[1:] == [
        "  not rated (bots never are)",
        "  streak in gaps: 3 in a row in the top half",
    ]
