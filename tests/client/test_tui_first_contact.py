"""The terminal clients as a new user meets them (Textual's pilot, a real server): typed
places that do not exist, Klondike's hint and footer, cards and cells as the board shows
them, deadlines in local time, an operator's early close, a refused token; and the live
standings viewer at 80×24 and 120×40 with its clocks running from `server_time`."""

from __future__ import annotations

import re
from typing import Any

from textual.widgets import Static
from textual.widgets._footer import FooterKey

from client_cli.tui.app import PlayApp
from client_cli.tui.standings import StandingsApp
from tests.support.harness import create_msg, running_server
from tests.support.tui import settle, shown, times_of

RAW_CODE = re.compile(r"\b[2-9TJQKA][CDHS]\b")  # the protocol's codes: the board shows 10♠
ISO_STAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:")


async def player(srv: Any, name: str) -> str:
    async with srv.client() as c:
        return str((await c.ok(type="register", name=name))["token"])


def footer_keys(app: Any) -> list[str]:
    return [str(k.description) for k in app.query(FooterKey)]


async def test_klondike_typed_places_hint_and_footer(sqlite_url) -> None:
    async with running_server(sqlite_url) as srv:
        op = await srv.admin()
        msg = create_msg(game="klondike", options={"draw": 1, "hints": True})
        tid = (await op.ok(**msg))["tournament"]["id"]
        app = PlayApp(srv.ws_url, await player(srv, "klon"), tid)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot, lambda: "home" in shown(app, "status"))
            # the crash of the issue: `t7 f` and `t9 f` (no such column) end nothing
            for typed in ("t7 f", "t9 f", "t9 t1", "x y", "t1 t2 many", "f t3"):
                await pilot.press(*typed, "enter")
                await settle(pilot, lambda: shown(app, "message") != "")
                assert app.is_running and app.state is not None
                assert "t0..t6" in shown(app, "message") or "FROM TO" in shown(app, "message")
                app.message("")
            # `t0 f`: the foundation of the top card's suit (a refusal is the server's reason)
            await pilot.press(*"t0 f", "enter")
            await settle(pilot, lambda: app.state["seq"] == 1 or shown(app, "message") != "")
            assert app.is_running
            # the hint in words and as the command to type, not a Python dict
            await pilot.press("h", "enter")
            await settle(pilot, lambda: shown(app, "message").startswith(("hint:", "no moves")))
            hint = shown(app, "message")
            assert "{" not in hint and "'kind'" not in hint
            assert "type `" in hint or hint == "no moves"
            # Klondike's footer has no gap keys; its input says what to type
            keys = footer_keys(app)
            assert "quit" in keys and "prev gap" not in keys and "next gap" not in keys
            assert "d draw" in app.query_one("#cmd").placeholder
            # cards as the board shows them, the deadline in local time with what is left
            assert not RAW_CODE.search(shown(app, "status"))
            clock = shown(app, "clock")
            assert "left" in clock and "deadline" in clock and not ISO_STAMP.search(clock)
        await op.close()


async def test_gaps_counts_cells_from_one_and_shows_cards_as_on_the_board(sqlite_url) -> None:
    async with running_server(sqlite_url) as srv:
        op = await srv.admin()
        tid = (await op.ok(**create_msg()))["tournament"]["id"]
        app = PlayApp(srv.ws_url, await player(srv, "gapper"), tid)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot, lambda: "in place" in shown(app, "status"))
            assert app.selected is not None
            row, col = app.selected
            status = shown(app, "status")
            assert f"row {row + 1} col {col + 1}" in status  # the board's headings count from 1
            board = shown(app, "board").splitlines()
            assert board[0].split()[:2] == ["1", "2"] and board[0].split()[-1] == "13"
            assert [line.split()[0] for line in board[1:5]] == ["1", "2", "3", "4"]
            assert not RAW_CODE.search(status)  # 10♠, never TS
            keys = footer_keys(app)
            assert "prev gap" in keys and "next gap" in keys
            assert "redeals" in shown(app, "side") and "resets" not in shown(app, "side")
        await op.close()


async def test_a_player_cut_off_by_an_early_close_is_told_so(sqlite_url) -> None:
    async with running_server(sqlite_url) as srv:
        op = await srv.admin()
        tid = (await op.ok(**create_msg()))["tournament"]["id"]
        app = PlayApp(srv.ws_url, await player(srv, "cutoff"), tid)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot, lambda: "in place" in shown(app, "status"))
            await op.ok(type="close_tournament", tournament=tid)
            await settle(pilot, lambda: app.state["status"] == "timed_out")
            await settle(pilot, lambda: "organiser closed" in shown(app, "status"))
            assert "time is up" not in shown(app, "status").lower()
            assert "organiser closed" in shown(app, "clock")
        await op.close()


async def test_a_refused_token_ends_the_app_with_one_line(sqlite_url) -> None:
    async with running_server(sqlite_url) as srv:
        op = await srv.admin()
        tid = (await op.ok(**create_msg()))["tournament"]["id"]
        app = PlayApp(srv.ws_url, "not-a-token", tid)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot, lambda: app.failure is not None)
        assert app.failure is not None and "unauthorized" in app.failure
        assert "\n" not in app.failure and "not-a-token" not in app.failure
        await op.close()


async def entrants(srv: Any, tid: int, n: int) -> None:
    """`n` players: the first plays two moves and goes on playing, the second resigns."""
    for i in range(n):
        async with srv.client() as c:
            await c.ok(type="register", name=f"runner{i}")
            state = await c.ok(type="join", tournament=tid)
            for _ in range(2):
                move = state["view"]["legal"][0]
                act = {"kind": "move", **move}
                state = await c.ok(type="act", tournament=tid, seq=state["seq"] + 1, action=act)
            if i == 1:
                await c.ok(
                    type="act", tournament=tid, seq=state["seq"] + 1, action={"kind": "resign"}
                )


class DrivenClock:
    def __init__(self) -> None:
        self.t = 1_000_000.0

    def __call__(self) -> float:
        return self.t


async def test_the_standings_viewer_fits_small_terminals_and_its_clocks_run(sqlite_url) -> None:
    async with running_server(sqlite_url) as srv:
        op = await srv.admin()
        tid = (await op.ok(**create_msg()))["tournament"]["id"]
        await entrants(srv, tid, 3)
        for size in ((80, 24), (120, 40)):
            clock = DrivenClock()
            app = StandingsApp(srv.ws_url, tid, clock=clock, keepalive_s=3600)
            async with app.run_test(size=size) as pilot:
                await settle(pilot, lambda app=app: app.page is not None)
                live = app.query_one("#live", Static)
                text = shown(app, "live")
                # one pane, its rows unwrapped: the widest line fits the pane's width
                assert not app.query_one("#page-box").display
                assert app.query_one("#live-box").display
                widest = max(len(line) for line in text.splitlines())
                assert widest <= live.size.width <= size[0], (widest, live.size)
                box = app.query_one("#live-box")  # nothing cut off: every line in the pane
                assert len(text.splitlines()) <= box.size.height, (text, box.size)
                assert "redeals" in text and "resets" not in text
                before = times_of(text)
                assert set(before) == {"runner0", "runner1", "runner2"}
                # the server's clock, as the viewer knows it, moves on 75 s: running rows
                # advance, the resigned one does not
                clock.t += 75
                app.refresh_view()
                after = times_of(shown(app, "live"))
                assert after["runner1"] == before["runner1"]
                for name in ("runner0", "runner2"):
                    assert 75 <= after[name] - before[name] <= 77, (before, after)
                # the whole table is a key away, and back
                await pilot.press("pagedown")
                await settle(pilot, lambda app=app: app.query_one("#page-box").display)
                assert not app.query_one("#live-box").display
                await pilot.press("l")
                await pilot.pause()
                assert app.query_one("#live-box").display
                await pilot.press("q")
        await op.close()
