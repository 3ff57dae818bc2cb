"""client_cli/commands/standings.py: the command's own lines in the chosen language
(the command against a real server: tests/client/test_standings_view.py)."""

from __future__ import annotations

from typing import Any

from client_cli.commands.standings import all_standings
from server.i18n import terminal


class Moving:
    """A connection whose table moves between every page."""

    def __init__(self) -> None:
        self.version = 0

    async def call(self, kind: str, **fields: Any) -> dict[str, Any]:
        self.version += 1
        rows = [{"rank": 1}] * 100 if fields["offset"] == 0 else []
        return {"type": "standings", "rows": rows, "total": 150, "version": self.version}


async def test_a_table_that_moved_while_paging_is_noted_in_spanish(capsys) -> None:
    terminal.choose("es")
    try:
        await all_standings(Moving(), 1)  # type: ignore[arg-type]
    finally:
        terminal.choose("en")
    assert capsys.readouterr().err.startswith("nota: la clasificación cambió")
