"""client_cli/tui/standings.py: the live viewer (Textual, driven by its pilot) against a
real server speaking PROTOCOL.md v1.2 (`subscribe` with top/around, `standings_page`,
both public): its window, its pages, an anonymous watcher; and its own lines in the
chosen language."""

from __future__ import annotations

from typing import Any

from client_cli.tui.standings import StandingsApp
from server.i18n import terminal
from tests.support.harness import create_msg, running_server
from tests.support.standings_field import entrant, field
from tests.support.tui import settle_within, shown


class Gone:
    async def call(self, kind: str, **fields: Any) -> dict[str, Any]:
        raise ConnectionError("reset")


async def test_the_viewer_says_a_lost_connection_in_spanish() -> None:
    terminal.choose("es")
    shown: list[str] = []
    try:
        app = StandingsApp("ws://127.0.0.1:9/ws", 1)
        app.conn = Gone()  # type: ignore[assignment]
        app.message = shown.append  # type: ignore[method-assign]
        await StandingsApp._fetch_page.__wrapped__(app, 0)  # type: ignore[attr-defined]
    finally:
        terminal.choose("en")
    assert shown == ["conexión perdida; reintentando…"]


async def test_the_viewer_shows_the_window_and_pages_through_the_table(sqlite_url) -> None:
    async with running_server(sqlite_url) as srv:
        op = await srv.admin()
        tid = (await op.ok(**create_msg()))["tournament"]["id"]
        tokens = await field(srv, tid, 26)
        me = "p18"  # middling progress: below the top 3
        app = StandingsApp(srv.ws_url, tid, token=tokens[me], top=3, around=2, page_size=10)
        async with app.run_test(size=(180, 50)) as pilot:
            await settle_within(
                pilot, lambda: app.page is not None and "rows 1–10" in shown(app, "page")
            )
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
            await settle_within(pilot, lambda: "rows 11–20 of 26" in shown(app, "page"))
            await pilot.press("end")
            await settle_within(pilot, lambda: "rows 21–26 of 26" in shown(app, "page"))
            await pilot.press("pagedown")  # past the end: stays on the last page
            await pilot.pause()
            assert app.offset == 20
            await pilot.press("home")
            await settle_within(pilot, lambda: "rows 1–10 of 26" in shown(app, "page"))
            await pilot.press("m")
            table = await op.ok(type="standings_page", tournament=tid, offset=0, limit=100)
            position = [r["player"] for r in table["rows"]].index(me)  # ties share a rank
            start = position // 10 * 10 + 1
            await settle_within(pilot, lambda: f"rows {start}–" in shown(app, "page"))
            assert me in shown(app, "page")

            # the live window keeps updating while a page is shown
            await pilot.press("home", "pagedown")
            await settle_within(pilot, lambda: "rows 11–20 of 26" in shown(app, "page"))
            version, fetches = window["version"], app.page_fetches
            await entrant(srv, tid, "late", 12)  # a new entrant: a change of the standings
            await settle_within(pilot, lambda: app.window["version"] > version)
            await settle_within(pilot, lambda: "27 entrants" in shown(app, "head"))
            await settle_within(pilot, lambda: app.page_fetches > fetches)  # the page followed
            assert "of 27" in shown(app, "page") and "rows 11–20" in shown(app, "page")

            await op.ok(type="close_tournament", tournament=tid)
            await settle_within(pilot, lambda: "closed; seed" in shown(app, "head"))
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
            await settle_within(pilot, lambda: "rows 1–5 of 12" in shown(app, "page"))
            assert "anonymously" in shown(app, "head")
            assert app.window is not None and app.page is not None
            top = [r["player"] for r in app.page["rows"][:4]]
            assert [r["player"] for r in app.window["rows"]] == top
            await pilot.press("pagedown", "pagedown")
            await settle_within(pilot, lambda: "rows 11–12 of 12" in shown(app, "page"))
            await pilot.press("m")
            await pilot.pause()
            assert "anonymously" in shown(app, "message")
            await pilot.press("q")
            await pilot.pause()
        await op.close()
