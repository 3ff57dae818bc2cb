"""client_cli/tui/render.py: a disqualified row (rank null) shows as DQ with its reason,
and its window's gaps and pages still work; running rows' clocks advance from the
server's time, a final table's stand still."""

from __future__ import annotations

from client_cli.tui import render
from client_cli.tui.render import skipped_before, standings_row, standings_text


def row(rank: int | None, player: str, **extra: object) -> dict[str, object]:
    return {
        "rank": rank,
        "player": player,
        "status": "won",
        "progress": 48,
        "resets": 0,
        "time_ms": 1000,
        "score": 48,
        **extra,
    }


def test_a_disqualified_row_shows_dq_and_the_reason() -> None:
    line = standings_row(row(None, "cheat", disqualified="a solver"))
    assert line.lstrip().startswith("DQ") and line.endswith("disqualified: a solver")
    assert "disqualified" not in standings_row(row(1, "fair"))
    text = standings_text({"final": True, "rows": [row(1, "fair"), row(None, "cheat")]}, "x")
    assert " DQ cheat" in text.plain


def test_gaps_ignore_the_unranked_rows_after_the_ranked() -> None:
    rows = [row(1, "a"), row(2, "b"), row(5, "e"), row(None, "x"), row(None, "y")]
    assert skipped_before(rows) == [False, False, True, False, False]


def test_advance_rows_moves_running_clocks_only() -> None:
    rows = [
        {"player": "a", "status": "playing", "time_ms": 1000},
        {"player": "b", "status": "won", "time_ms": 1000},
    ]
    moved = render.advance_rows(rows, 2500)
    assert [r["time_ms"] for r in moved] == [3500, 1000]
    now = [1_000_000.0]
    running = render.RunningClock(lambda: now[0])
    msg = {"final": False, "server_time": "2026-12-01T10:00:00.000Z"}
    running.sync("2026-12-01T10:00:01.000Z", now[0] - 0.2, now[0] + 0.2)  # 1 s after
    assert running.elapsed_ms(msg) == 1000
    now[0] += 4
    assert running.elapsed_ms(msg) == 5000
    assert running.elapsed_ms({**msg, "final": True}) == 0  # a final table stands still
