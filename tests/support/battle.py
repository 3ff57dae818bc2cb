"""Team battle bundles for tests (RECORD.md "Additions (v1.4): clubs and team battles"):
a bundle made a battle, its rows and club table made again after a change."""

from __future__ import annotations

import copy
from typing import Any

from server.domain import club_score
from tests.support.fairplay import rows_of

NAMES = {11: "Owls", 12: "Foxes", 13: "Larks"}


def battle_of(
    bundle: dict[str, Any], clubs: dict[str, int], counted: int = 2, named: list[int] | None = None
) -> dict[str, Any]:
    """A copy of `bundle` made a battle between `named` (default: the clubs of `clubs`,
    by id) with `counted`: each record's club from `clubs` (player name -> id), the
    tournament's `battle` in every record, the rows and `clubs` made again."""
    out = copy.deepcopy(bundle)
    named = named or sorted(set(clubs.values()))
    out["tournament"]["battle"] = {"clubs": named, "counted": counted}
    out["tournament"]["club"] = None
    for r in out["records"]:
        r["tournament"] = copy.deepcopy(out["tournament"])
        r["club"] = clubs[r["player"]["name"]]
    return again(out)


def again(bundle: dict[str, Any]) -> dict[str, Any]:
    """The battle bundle's standings (disqualifications applied) and club table made
    again from its records, as the server writes them."""
    club = {r["player"]["name"]: r["club"] for r in bundle["records"]}
    rows = [{**row, "club": club[row["player"]]} for row in rows_of(bundle)]
    battle = bundle["tournament"]["battle"]
    bundle["standings"] = rows
    bundle["clubs"] = [
        line.as_dict()
        for line in club_score.table(
            ((r["rank"], r["club"]) for r in rows),
            sum(r["rank"] is not None for r in rows),
            [(c, NAMES.get(c, f"club{c}")) for c in battle["clubs"]],
            battle["counted"],
        )
    ]
    return bundle
