"""client_cli/commands/standings.py: `samedeal standings` against a real server (its
window, --all and --json), its plain --follow table's running clocks, and its own lines
in the chosen language."""

from __future__ import annotations

import json
import os
from typing import Any

from client_cli import config
from client_cli.commands.standings import all_standings, standings_table
from server.i18n import terminal
from tests.support.harness import create_msg, running_server
from tests.support.processes import samedeal
from tests.support.standings_field import field
from tests.support.tui import times_of


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


def test_the_plain_follow_table_advances_running_rows_too() -> None:
    """`standings --follow` without a terminal redraws every second with the running
    rows advanced by the time since `server_time` (commands/standings._follow)."""
    msg = {
        "tournament": 1,
        "final": False,
        "total": 2,
        "server_time": "2026-12-01T10:00:00.000Z",
        "rows": [
            {
                "rank": 1,
                "player": "runner0",
                "status": "playing",
                "progress": 3,
                "resets": 0,
                "time_ms": 5_000,
                "score": 3,
            },
            {
                "rank": 2,
                "player": "runner1",
                "status": "won",
                "progress": 3,
                "resets": 1,
                "time_ms": 5_000,
                "score": 3,
            },
        ],
    }
    table = standings_table(msg, None, "gaps", elapsed_ms=60_000)
    assert times_of(table) == {"runner0": 65, "runner1": 5}
    assert "redeals" in table.splitlines()[1]
