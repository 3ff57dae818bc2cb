"""A team battle in a bundle (RECORD.md "Additions (v1.4): clubs and team battles").

In a bundle whose `tournament.battle` is not null: every record carries a `club` of
`battle.clubs` (`club_of`), every standings row its record's (the rows the verifier
expects carry it: server/audit/amended.py), and `clubs` holds each named club once, with
each `score`, `counted_ranks` and the order following from the standings, amendments
applied as they are (`check_clubs`, through server/domain/club_score.py). A battle
bundle without `clubs`, or `clubs` in one that is no battle, is a difference; `name` is
not checked. Outside a battle a record's or row's `club` is not read. Pure.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from server.audit.records import Bundle, ClubLine, Record, RecordTournament
from server.audit.replay import Mismatch, Report, who_of
from server.audit.untrusted import show
from server.domain import club_score
from server.i18n.said import said


def club_of(t: RecordTournament, record: Record) -> int | None:
    """The club the record's entry played for, as its standings row must repeat it: in a
    battle one of the battle's clubs (else Mismatch), otherwise None (not read)."""
    if t.battle is None:
        return None
    if record.club is None or record.club not in t.battle.clubs:
        raise Mismatch(
            said(
                "audit.diff.club",
                who=who_of(record),
                club=show(record.club),
                clubs=show(t.battle.clubs),
            )
        )
    return record.club


def check_clubs(bundle: Bundle, rows: Sequence[dict[str, Any]], report: Report) -> None:
    """The bundle's `clubs` against the table the expected standings `rows` give."""
    battle = bundle.tournament.battle
    if battle is None:
        if bundle.clubs is not None:
            raise Mismatch(said("audit.diff.clubs_no_battle"))
        return
    if bundle.clubs is None:
        raise Mismatch(said("audit.diff.battle_no_clubs"))
    named = list(dict.fromkeys(battle.clubs))
    listed = [line.club for line in bundle.clubs]
    if sorted(listed) != sorted(named):
        raise Mismatch(said("audit.diff.clubs_listed", listed=show(listed), named=show(named)))
    names = {line.club: line.name for line in bundle.clubs}
    ranked = sum(r["rank"] is not None for r in rows)
    want = club_score.table(
        ((r["rank"], r["club"]) for r in rows),
        ranked,
        [(c, names[c]) for c in named],
        battle.counted,
    )
    for i, (w, got) in enumerate(zip(want, bundle.clubs, strict=True), 1):
        expected = {"club": w.club, "score": w.score, "counted_ranks": w.counted_ranks}
        if _line(got) != expected:
            raise Mismatch(
                said("audit.diff.clubs_line", i=i, got=show(_line(got)), want=show(expected))
            )
    report.checked.append(said("audit.battle", n=len(named), counted=battle.counted))


def _line(line: ClubLine) -> dict[str, Any]:
    return {"club": line.club, "score": line.score, "counted_ranks": line.counted_ranks}
