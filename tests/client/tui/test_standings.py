"""client_cli/tui/standings.py: the live viewer's own lines in the chosen language (the
viewer against a real server: tests/client/test_standings_view.py)."""

from __future__ import annotations

from typing import Any

from client_cli.tui.standings import StandingsApp
from server.i18n import terminal


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
