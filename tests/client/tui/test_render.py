"""client_cli/tui/render.py: a disqualified row (rank null) shows as DQ with its reason,
and its window's gaps and pages still work; running rows' clocks advance from the
server's time, a final table's stand still; cards, cells, actions, spans and an early
close in words."""

from __future__ import annotations

from datetime import UTC, datetime

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


def test_cards_cells_and_actions_in_words() -> None:
    assert [render.label(c) for c in ("TS", "2H", "AC")] == ["10♠", "2♥", "A♣"]
    assert render.card_text("KD").style == "bold red"
    assert render.where([0, 12]) == "row 1 col 13"
    assert render.describe(None) == "no move"
    gaps = {"kind": "move", "card": "TS", "to": [1, 0]}
    assert render.describe(gaps) == "move 10♠ to row 2 col 1"
    klondike = {"kind": "move", "from": "t2", "to": "t5", "count": 3}
    assert render.describe(klondike) == "move 3 cards from t2 to t5 (type `t2 t5 3`)"
    waste = {"kind": "move", "from": "waste", "to": "fH"}
    assert render.describe(waste) == "move from waste to fH (type `w fH`)"
    assert render.describe({"kind": "draw"}) == "draw (type `d`)"


def test_spans_and_durations_read_as_people_say_them() -> None:
    assert render.relative(45) == "in 45 s" and render.relative(-600) == "10 min ago"
    assert render.relative(3 * 3600 + 120) == "in 3 h 2 min"
    assert render.relative(-3 * 86400) == "3 days ago"
    assert render.duration(123_000) == "2:03" and render.duration(3_723_000) == "1:02:03"
    assert render.duration(-5) == "0:00"
    assert render.status_word("won") == "won" and render.status_word("odd") == "odd"


def test_a_game_ended_by_an_early_close_says_so_not_time_up() -> None:
    state = {
        "status": "timed_out",
        "started_at": "2026-12-02T10:00:00+00:00",
        "deadline": "2026-12-02T10:15:00+00:00",
        "time_ms": 60_000,
    }
    assert render.closed_early(state) == datetime(2026, 12, 2, 10, 1, tzinfo=UTC)
    assert render.game_over(state).startswith("game over: the organiser closed")
    on_time = {**state, "time_ms": 900_000}
    assert render.closed_early(on_time) is None
    assert render.game_over({"status": "won"}) == "game over: you won"
