"""`samedeal standings`: the live viewer (Textual, driven by its pilot) and the command's
window, --all and --json, against a real server speaking PROTOCOL.md v1.2 (`subscribe`
with top/around, `standings_page`, both public)."""

from __future__ import annotations

import asyncio
import json
import os
from typing import Any

from textual.widgets import Static

from client_cli import config
from client_cli.tui.standings import StandingsApp
from tests.support.harness import Running, create_msg, running_server
from tests.support.processes import samedeal


def shown(app: StandingsApp, widget: str) -> str:
    return str(app.query_one(f"#{widget}", Static).content)


async def settle(pilot: Any, condition: Any, seconds: float = 30.0) -> None:
    """Wait for the screen to reach `condition` (generous: a busy machine is slow)."""
    deadline = asyncio.get_running_loop().time() + seconds
    while asyncio.get_running_loop().time() < deadline:
        await pilot.pause()
        if condition():
            return
        await asyncio.sleep(0.02)
    app = pilot.app
    raise AssertionError(
        f"the screen did not reach the expected state: {shown(app, 'page')!r} "
        f"{shown(app, 'message') if app.query('#message') else ''!r}"
    )


async def entrant(srv: Running, tid: int, name: str, moves: int) -> str:
    """A player who joins and plays `moves` Gaps moves (first legal); their token."""
    async with srv.client() as c:
        token = (await c.ok(type="register", name=name))["token"]
        state = await c.ok(type="join", tournament=tid)
        for _ in range(moves):
            legal = state["view"]["legal"]
            if state["status"] != "playing" or not legal:
                break
            action = {"kind": "move", **legal[0]}
            state = await c.ok(type="act", tournament=tid, seq=state["seq"] + 1, action=action)
    return token


async def field(srv: Running, tid: int, n: int) -> dict[str, str]:
    """`n` entrants p00.. with spread progress; their tokens by name."""
    names = [f"p{i:02d}" for i in range(n)]
    tokens = await asyncio.gather(*(entrant(srv, tid, x, i % 9) for i, x in enumerate(names)))
    return dict(zip(names, tokens, strict=True))


async def test_the_viewer_shows_the_window_and_pages_through_the_table(sqlite_url) -> None:
    async with running_server(sqlite_url) as srv:
        op = await srv.admin()
        tid = (await op.ok(**create_msg()))["tournament"]["id"]
        tokens = await field(srv, tid, 26)
        me = "p18"  # middling progress: below the top 3
        app = StandingsApp(srv.ws_url, tid, token=tokens[me], top=3, around=2, page_size=10)
        async with app.run_test(size=(180, 50)) as pilot:
            await settle(pilot, lambda: app.page is not None and "rows 1–10" in shown(app, "page"))
            assert "26 entrants" in shown(app, "head") and f"you are {me}" in shown(app, "head")
            window = app.window
            assert window is not None and window["total"] == 26
            ranks = [r["rank"] for r in window["rows"]]
            players = [r["player"] for r in window["rows"]]
            assert ranks == sorted(ranks) and len(set(players)) == len(players)
            assert me in players and players[:3] == [r["player"] for r in app.page["rows"][:3]]
            assert len(players) <= 3 + 1 + 2 * 2
            live = shown(app, "live")
            assert me in live and players[0] in live
            assert "rows 1–10 of 26" in shown(app, "page")

            await pilot.press("pagedown")
            await settle(pilot, lambda: "rows 11–20 of 26" in shown(app, "page"))
            await pilot.press("end")
            await settle(pilot, lambda: "rows 21–26 of 26" in shown(app, "page"))
            await pilot.press("pagedown")  # past the end: stays on the last page
            await pilot.pause()
            assert app.offset == 20
            await pilot.press("home")
            await settle(pilot, lambda: "rows 1–10 of 26" in shown(app, "page"))
            await pilot.press("m")
            table = await op.ok(type="standings_page", tournament=tid, offset=0, limit=100)
            position = [r["player"] for r in table["rows"]].index(me)  # ties share a rank
            start = position // 10 * 10 + 1
            await settle(pilot, lambda: f"rows {start}–" in shown(app, "page"))
            assert me in shown(app, "page")

            # the live window keeps updating while a page is shown
            await pilot.press("home", "pagedown")
            await settle(pilot, lambda: "rows 11–20 of 26" in shown(app, "page"))
            version, fetches = window["version"], app.page_fetches
            await entrant(srv, tid, "late", 12)  # a new entrant: a change of the standings
            await settle(pilot, lambda: app.window["version"] > version)
            await settle(pilot, lambda: "27 entrants" in shown(app, "head"))
            await settle(pilot, lambda: app.page_fetches > fetches)  # the page followed
            assert "of 27" in shown(app, "page") and "rows 11–20" in shown(app, "page")

            await op.ok(type="close_tournament", tournament=tid)
            await settle(pilot, lambda: "closed; seed" in shown(app, "head"))
            assert "final" in shown(app, "head")
            await pilot.press("q")
            await pilot.pause()
        assert app.return_code in (0, None) and not app.is_running
        await op.close()


async def test_an_anonymous_watcher_sees_the_top_only(sqlite_url) -> None:
    async with running_server(sqlite_url) as srv:
        op = await srv.admin()
        tid = (await op.ok(**create_msg()))["tournament"]["id"]
        await field(srv, tid, 12)
        app = StandingsApp(srv.ws_url, tid, top=4, page_size=5)
        async with app.run_test(size=(180, 50)) as pilot:
            await settle(pilot, lambda: "rows 1–5 of 12" in shown(app, "page"))
            assert "anonymously" in shown(app, "head")
            assert app.window is not None and app.page is not None
            top = [r["player"] for r in app.page["rows"][:4]]
            assert [r["player"] for r in app.window["rows"]] == top
            await pilot.press("pagedown", "pagedown")
            await settle(pilot, lambda: "rows 11–12 of 12" in shown(app, "page"))
            await pilot.press("m")
            await pilot.pause()
            assert "anonymously" in shown(app, "message")
            await pilot.press("q")
            await pilot.pause()
        await op.close()


async def test_the_command_prints_a_window_every_row_and_json(sqlite_url) -> None:
    async with running_server(sqlite_url) as srv:
        op = await srv.admin()
        tid = (await op.ok(**create_msg()))["tournament"]["id"]
        env = {**os.environ, "SAMEDEAL_SERVER": srv.ws_url}
        await field(srv, tid, 115)  # two pages of 100

        code, out, err = await samedeal(env, "standings", str(tid), "--all", "--json")
        assert code == 0, err
        msg = json.loads(out)
        assert msg["total"] == 115 and len(msg["rows"]) == 115
        assert len({r["player"] for r in msg["rows"]}) == 115
        ranks = [r["rank"] for r in msg["rows"]]
        assert ranks == sorted(ranks) and ranks[0] == 1
        code, out, err = await samedeal(env, "standings", str(tid), "--all")
        assert code == 0, err
        lines = out.strip().splitlines()
        assert "115 entrants" in lines[0] and len(lines) == 2 + 115
        assert "…" not in out

        # one window, anonymously (no token saved yet): the top 10 by default
        code, out, err = await samedeal(env, "standings", str(tid), "--json")
        assert code == 0, err
        window = json.loads(out)
        assert [r["player"] for r in window["rows"]] == [r["player"] for r in msg["rows"][:10]]
        # as a saved player far down the table (last by name in any tie): top and around
        code, _, err = await samedeal(env, "register", "zzlast")
        assert code == 0, err
        saved = config.token_for(srv.ws_url)
        assert saved is not None
        async with srv.client() as c:
            await c.ok(type="auth", token=saved[1])
            await c.ok(type="join", tournament=tid)
        code, out, err = await samedeal(
            env, "standings", str(tid), "--top", "3", "--around", "1", "--json"
        )
        assert code == 0, err
        rows = json.loads(out)["rows"]
        assert [r["player"] for r in rows[:3]] == [r["player"] for r in msg["rows"][:3]]
        assert "zzlast" in [r["player"] for r in rows[3:]] and len(rows) <= 6
        code, out, err = await samedeal(env, "standings", str(tid), "--top", "3", "--around", "1")
        assert code == 0 and "…" in out and "zzlast" in out, out + err
        code, _, err = await samedeal(env, "standings", str(tid), "--all", "--follow")
        assert code == 2 and "not allowed" in err
        await op.close()
