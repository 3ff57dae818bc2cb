"""Fair play in a bundle (RECORD.md v1.3, docs/RECORDS.md "Fair play"): which entries
are disqualified, and the standings rows that must follow from the results then.

A record carries `disqualified` ({"reason", "at"}) when its entry was disqualified; a
bundle carries `amendments` ({"player", "reason", "at"}, in order of `at`) for those
made after the close. They must agree: every amendment names a record that carries the
same disqualification, no player is amended twice, and a record disqualified after the
tournament closed has its amendment. The disqualified are then left out of the ranking
and listed after the others with rank None (server/domain/ranking.standings_without).
Pure; the verifier calls `expected_rows` once per bundle (server/audit/verify.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from server.audit.records import Amendment, Disqualification, bundle_row
from server.audit.untrusted import Unreadable, show
from server.domain import timing
from server.domain.ranking import Result, standings_without
from server.i18n.said import said


class Difference(Exception):
    """An amendment that does not fit the records (the verifier's Mismatch)."""


class Mark(NamedTuple):
    """What a record says of its entry beyond its game: its player's kind, its
    disqualification and its par ({progress, resets}: what its standings row repeats)."""

    player: str
    bot: bool
    disqualified: Disqualification | None
    par: dict[str, int] | None = None
    player_id: int | None = None  # v1.4: what an erasure names
    club: int | None = None  # v1.4: in a battle, the club its entry played for


def _time(text: str, what: str) -> float:
    try:
        return timing.parse_iso(text).timestamp()
    except (ValueError, OverflowError) as exc:
        raise Unreadable(said("audit.unreadable.time", what=what, why=str(exc))) from None


def disqualified_of(
    marks: Sequence[Mark], amendments: Sequence[Amendment], closed_at: str | None
) -> dict[str, str]:
    """Player name -> reason of every disqualified entry; Difference when the amendments
    and the records disagree."""
    by_name = {m.player: m for m in marks}
    by_id = {m.player_id: m for m in marks}
    amended: set[str] = set()
    erased: set[int] = set()
    last = float("-inf")
    for i, a in enumerate(amendments, start=1):
        _readable(i, a)
        if a.kind == "erasure":
            assert a.player_id is not None
            _erasure(
                said("audit.amendment_erasure", i=i, id=a.player_id), a.player_id, by_id, erased
            )
            at = _time(a.at, said("audit.amendment", i=i))
            if at < last:
                raise Difference(
                    said("audit.diff.out_of_order", where=said("audit.amendment", i=i))
                )
            last = at
            continue
        assert a.player is not None and a.reason is not None
        where = said("audit.amendment_of", i=i, name=show(a.player))
        mark = by_name.get(a.player)
        if mark is None:
            raise Difference(said("audit.diff.no_such_player", where=where))
        if a.player in amended:
            raise Difference(said("audit.diff.amended_twice", where=where))
        amended.add(a.player)
        d = mark.disqualified
        if d is None:
            raise Difference(said("audit.diff.not_disqualified", where=where))
        if (d.reason, d.at) != (a.reason, a.at):
            raise Difference(
                said(
                    "audit.diff.amendment_says",
                    where=where,
                    reason=show(a.reason),
                    at=show(a.at),
                    record_reason=show(d.reason),
                    record_at=show(d.at),
                )
            )
        at = _time(a.at, where)
        if at < last:
            raise Difference(said("audit.diff.out_of_order", where=where))
        last = at
    if closed_at:
        closed = _time(closed_at, said("audit.closed_at"))
        for m in marks:
            d = m.disqualified
            if (
                d is not None
                and m.player not in amended
                and _time(d.at, said("audit.record_of", name=show(m.player))) > closed
            ):
                raise Difference(
                    said(
                        "audit.diff.no_amendment",
                        who=said("audit.record_of", name=show(m.player)),
                        at=show(d.at),
                    )
                )
    return {m.player: m.disqualified.reason for m in marks if m.disqualified is not None}


def _readable(i: int, a: Amendment) -> None:
    """An amendment of a known kind with the fields of its kind; Unreadable otherwise."""
    if a.kind == "erasure":
        if a.player_id is None:
            raise Unreadable(said("audit.unreadable.erasure", i=i))
    elif a.kind == "disqualification":
        if a.player is None or a.reason is None:
            raise Unreadable(said("audit.unreadable.disqualification", i=i))
    else:
        raise Unreadable(said("audit.unreadable.amendment_kind", i=i, kind=show(a.kind)))


def _erasure(where: str, player_id: int, by_id: dict[int | None, Mark], erased: set[int]) -> None:
    """An erasure names a record's player id, that record carries the pseudonym, and no
    id is erased twice (RECORD.md "Additions (v1.4): deleted accounts")."""
    mark = by_id.get(player_id)
    if mark is None:
        raise Difference(said("audit.diff.no_such_id", where=where))
    if mark.player != f"deleted-{player_id}":
        raise Difference(
            said("audit.diff.not_pseudonym", where=where, name=show(mark.player), id=player_id)
        )
    if player_id in erased:
        raise Difference(said("audit.diff.erased_twice", where=where))
    erased.add(player_id)


def expected_rows(
    results: Sequence[Result],
    marks: Sequence[Mark],
    amendments: Sequence[Amendment],
    closed_at: str | None,
    battle: bool = False,
) -> tuple[list[dict[str, Any]], int]:
    """The bundle's standings rows as they must be (`bundle_row` of each; in a `battle`
    with its record's `club` last), and how many entries are disqualified."""
    disqualified = disqualified_of(marks, amendments, closed_at)
    marked = {m.player: m for m in marks}
    rows = [
        bundle_row(r.as_dict(), marked[r.player].bot, marked[r.player].par)
        for r in standings_without(results, disqualified)
    ]
    if battle:
        for row in rows:
            row["club"] = marked[row["player"]].club
    return rows, len(disqualified)
