"""A team battle's club table where the server shows it (v1.4, PROTOCOL.md "Team
battles"): beside the live standings (table.py), in `standings.json`, in the bundle and in
`results.csv`. The scoring is server/domain/club_score.py's, the one the verifiers use;
here are only its inputs: the named clubs with their names, and rows with their clubs."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from server.domain import club_score
from server.domain.model import TournamentInfo
from server.store import battles as stored
from server.store.repository import Store

Named = list[tuple[int, str]]  # a battle's clubs, (id, name) in the order created


async def named_clubs(store: Store, t: TournamentInfo) -> Named | None:
    """The battle's clubs with their names, or None for a tournament that is no battle."""
    return await named_of(store, t.battle)


async def named_of(store: Store, battle: Mapping[str, Any] | None) -> Named | None:
    """`named_clubs` of a tournament's `battle` ({"clubs", "counted"} or None)."""
    if battle is None:
        return None
    ids = [int(c) for c in battle["clubs"]]
    names = await stored.club_names(store, ids)
    return [(c, names.get(c, "")) for c in ids]


def clubs_of(
    battle: Mapping[str, Any],
    named: Named,
    rows: Iterable[tuple[int | None, int | None]],
    ranked: int,
) -> list[dict[str, Any]]:
    """The `clubs` of a battle's standings or bundle: `rows` (rank, club) best first
    (rank None: disqualified, after the ranked), `ranked` how many are ranked."""
    counted = int(battle["counted"])
    return [line.as_dict() for line in club_score.table(rows, ranked, named, counted)]


def with_clubs(
    rows: list[dict[str, Any]], club_of: Mapping[str, int | None]
) -> list[dict[str, Any]]:
    """Bundle rows (by player name) with their entry's `club`, last."""
    for row in rows:
        row["club"] = club_of.get(row["player"])
    return rows


def table_of_rows(
    t: TournamentInfo, named: Named, rows: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """`clubs_of` the rows of a bundle (dicts carrying `rank` and `club`)."""
    assert t.battle is not None
    ranked = sum(r["rank"] is not None for r in rows)
    return clubs_of(t.battle, named, ((r["rank"], r["club"]) for r in rows), ranked)
