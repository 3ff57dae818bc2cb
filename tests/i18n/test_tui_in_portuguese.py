"""The play screen in Brazilian Portuguese through Textual's pilot against a real server:
the status line, a card named whole, and the server's refusal said from its reason."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from client_cli.tui.app import PlayApp
from server.i18n import terminal
from tests.support.harness import create_msg, running_server
from tests.support.tui import settle, shown


@pytest.fixture
def brazilian() -> Iterator[None]:
    terminal.choose("pt-BR")
    try:
        yield
    finally:
        terminal.choose("en")


async def test_the_play_screen_speaks_pt_br(sqlite_url: str, brazilian: None) -> None:
    async with running_server(sqlite_url) as srv:
        op = await srv.admin()
        tid = (await op.ok(**create_msg()))["tournament"]["id"]  # type: ignore[no-untyped-call]
        async with srv.client() as c:
            token = (await c.ok(type="register", name="joão"))["token"]
        app = PlayApp(srv.ws_url, token, tid)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot, lambda: "no lugar" in shown(app, "status"))
            status = shown(app, "status")
            assert "redistribuições restantes 2" in status and "pontos" in status
            assert "tempo" in shown(app, "clock") and "prazo" in shown(app, "clock")
            assert "classificação" in shown(app, "side") and "joão" in shown(app, "side")
            legal = {m["card"] for m in app.state["view"]["legal"]}
            grid = app.state["view"]["grid"]
            stuck = next(code for row in grid for code in row if code and code not in legal)
            await pilot.press(*stuck, "enter")
            await settle(pilot, lambda: "não cabe em nenhuma lacuna" in shown(app, "message"))
            name = terminal.card(stuck)
            assert shown(app, "message") == f"{name} não cabe em nenhuma lacuna"
            assert name.split(" de ")[-1] in ("paus", "ouros", "copas", "espadas")
            if not app.state["view"]["blocked"]:
                await pilot.press(*"redeal", "enter")
                said = "A redistribuição só é permitida quando não resta jogada."
                await settle(pilot, lambda: shown(app, "message") == said)
