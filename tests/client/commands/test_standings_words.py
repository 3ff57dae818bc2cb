"""The standings command's and viewer's own lines in the chosen language."""

from __future__ import annotations

from typing import Any

from client_cli.commands.standings import all_standings
from client_cli.tui.standings import StandingsApp
from server.i18n import terminal


class Moving:
    """A connection whose table moves between every page."""

    def __init__(self) -> None:
        self.version = 0

    async def call(self, kind: str, **fields: Any) -> dict[str, Any]:
        self.version += 1
        rows = [{"rank": 1}] * 100 if fields["offset"] == 0 else []
        return {"type": "standings", "rows": rows, "total": 150, "version": self.version}


class Gone:
    async def call(self, kind: str, **fields: Any) -> dict[str, Any]:
        raise ConnectionError("reset")


async def test_a_table_that_moved_while_paging_is_noted_in_spanish(capsys) -> None:
    terminal.choose("es")
    try:
        await all_standings(Moving(), 1)  # type: ignore[arg-type]
    finally:
        terminal.choose("en")
    assert capsys.readouterr().err.startswith("nota: la clasificación cambió")


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
