"""The terminal client shows a disqualified row (rank null) as DQ with its reason, and
its window's gaps and pages still work."""

from __future__ import annotations

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
