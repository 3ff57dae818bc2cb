"""The terminal client on the Gaps family's variants (Textual's pilot, a real server):
the board names the variant's rule, Montana's fixed 2s are drawn apart, a Free Parking
gap that two cards fit shows both ways in, and the card below a right neighbour is
played by typing it."""

from __future__ import annotations

import pytest
from rich.text import Text
from textual.widgets import Static

from client_cli.tui import render
from client_cli.tui.app import PlayApp
from tests.support.harness import create_msg, running_server
from tests.support.tui import settle, shown

ZERO = bytes(32)  # the vectors' seed 00..00 (gaps-variants-v1.json): its deals are known


async def _play_app(sqlite_url: str, variant: str, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    monkeypatch.setattr("server.rng.new_seed", lambda: ZERO)
    srv_cm = running_server(sqlite_url)
    srv = await srv_cm.__aenter__()
    op = await srv.admin()
    t = await op.ok(**create_msg(options={"variant": variant}))
    async with srv.client() as c:
        token = (await c.ok(type="register", name=f"{variant}_player"))["token"]
    return srv_cm, PlayApp(srv.ws_url, token, t["tournament"]["id"])


def _styles_at(board: Text, text: str) -> set[str]:
    """The styles of every span covering the first `text` of each board line."""
    styles: set[str] = set()
    start = 0
    for line in board.plain.split("\n"):
        at = line.find(text)
        if at >= 0:
            for span in board.spans:
                if span.start <= start + at < span.end:
                    styles.add(str(span.style))
        start += len(line) + 1
    return styles


async def test_montana_board_draws_the_fixed_2s_and_says_why(
    sqlite_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    srv_cm, app = await _play_app(sqlite_url, "montana", monkeypatch)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot, lambda: "in place" in shown(app, "status"))
            assert app.variant == "montana"
            board = app.query_one("#board", Static).content
            assert isinstance(board, Text)
            assert "Montana: the 2s are dealt into column 1 and never move" in board.plain
            assert any("underline" in s for s in _styles_at(board, "2♣"))
            assert "in place 4/48" in shown(app, "status")  # the four 2s count from the deal
            await pilot.press(*"2C", "enter")
            await settle(pilot, lambda: "fits no gap" in shown(app, "message"))
    finally:
        await srv_cm.__aexit__(None, None, None)


async def test_free_parking_shows_two_ways_in_and_plays_the_card_below(
    sqlite_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    srv_cm, app = await _play_app(sqlite_url, "free_parking", monkeypatch)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot, lambda: "in place" in shown(app, "status"))
            board = shown(app, "board")
            assert "Free Parking: a gap also takes the card one below its right neighbour" in board
            assert render.TWO_WAYS in board
            assert app.state is not None and app.state["view"]["grid"][0][3] == "6D"
            while app.selected != (0, 2):
                await pilot.press("right")
            assert "gap row 1 col 3 takes" in shown(app, "status")
            assert "or 5♦" in shown(app, "status")
            await pilot.press(*"5D", "enter")  # below its right neighbour 6D
            await settle(pilot, lambda: app.state is not None and app.state["seq"] == 1)
            assert app.state["view"]["grid"][0][2:4] == ["5D", "6D"]
    finally:
        await srv_cm.__aexit__(None, None, None)


def test_addiction_board_names_its_rule() -> None:
    view = {"grid": [[None] + ["KS"] * 12] * 4, "legal": [], "redeals_left": 3, "blocked": True}
    board = render.gaps_grid(view, None, "addiction")
    assert "Addiction: each redeal puts the gaps where the aces fall" in board.plain
    assert "Montana" not in render.gaps_grid(view, None, "gaps").plain
