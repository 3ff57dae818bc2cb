"""server/competition/battles.py: the inputs of a battle's club table (the scoring itself
is tests/domain/test_club_score.py's)."""

from __future__ import annotations

from typing import Any

from server.competition import battles

BATTLE = {"clubs": [7, 3, 5], "counted": 2}
NAMED = [(7, "A"), (3, "B"), (5, "C")]


async def test_a_tournament_that_is_no_battle_has_no_named_clubs() -> None:
    assert await battles.named_of(None, None) is None  # type: ignore[arg-type]


def test_clubs_of_rows_best_first_with_the_disqualified_after() -> None:
    # the contract's worked example: counted 2, A at ranks 1, 4, 5, B at 2, 3, C none
    rows = [(1, 7), (2, 3), (3, 3), (4, 7), (5, 7), (None, 5)]
    table = battles.clubs_of(BATTLE, NAMED, rows, ranked=5)
    assert [(c["club"], c["score"], c["counted_ranks"]) for c in table] == [
        (7, 7, [1, 4]),  # A 5 + 2, best rank 1
        (3, 7, [2, 3]),  # B 4 + 3
        (5, 0, []),
    ]


def test_bundle_rows_gain_their_entrys_club_last_and_make_the_same_table() -> None:
    rows: list[dict[str, Any]] = [
        {"rank": 1, "player": "ana"},
        {"rank": 2, "player": "bo"},
        {"rank": None, "player": "cy"},
    ]
    out = battles.with_clubs(rows, {"ana": 7, "bo": 3})
    assert [list(r)[-1] for r in out] == ["club"] * 3
    assert [r["club"] for r in out] == [7, 3, None]

    class Info:
        battle = BATTLE

    table = battles.table_of_rows(Info(), NAMED, out)  # type: ignore[arg-type]
    assert [c["club"] for c in table] == [7, 3, 5]
