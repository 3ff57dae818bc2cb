"""Fair-play bundles for tests: a good bundle amended after the close, and its rows."""

from __future__ import annotations

import copy
from typing import Any

from server.audit.records import bundle_row
from server.domain.ranking import Result, standings_without
from tests.support.factories import figures


def rows_of(bundle: dict[str, Any]) -> list[dict[str, Any]]:
    """The standings the bundle's records give with their disqualifications applied."""
    records = bundle["records"]
    disqualified = {
        r["player"]["name"]: r["disqualified"]["reason"] for r in records if r.get("disqualified")
    }
    bots = {r["player"]["name"]: bool(r["player"].get("bot")) for r in records}
    results = [Result(r["player"]["name"], figures(**r["result"])) for r in records]
    return [
        bundle_row(s.as_dict(), bots[s.player]) for s in standings_without(results, disqualified)
    ]


def amend(
    bundle: dict[str, Any], player: str, reason: str, at: str = "2026-11-30T20:00:00Z"
) -> dict[str, Any]:
    """A copy of `bundle` with `player` disqualified after the close: the record marked,
    the amendment appended and the standings made again."""
    out = copy.deepcopy(bundle)
    for r in out["records"]:
        if r["player"]["name"] == player:
            r["disqualified"] = {"reason": reason, "at": at}
    out.setdefault("amendments", []).append({"player": player, "reason": reason, "at": at})
    out["standings"] = rows_of(out)
    return out


def disqualify_before_close(
    bundle: dict[str, Any], player: str, reason: str, at: str = "2026-11-30T18:30:00Z"
) -> dict[str, Any]:
    """A copy with `player` disqualified while the tournament ran (no amendment)."""
    out = copy.deepcopy(bundle)
    for r in out["records"]:
        if r["player"]["name"] == player:
            r["disqualified"] = {"reason": reason, "at": at}
    out["standings"] = rows_of(out)
    return out
