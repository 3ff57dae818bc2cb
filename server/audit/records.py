"""The record (samedeal-record/1) and bundle (samedeal-bundle/1) formats.

Readers ignore fields they do not know; writers write every field. The
tournament object carries one field beyond the contract, `closed_at`, the
moment it actually closed (an early close ends timed-out games there).
A record carries `log_hash` and a bundle `log_root` (receipts, samedeal-log/1:
server/audit/receipts.py); both are optional to readers, since records written
before receipts have neither. A tournament that took its deal from a public beacon
carries `beacon` (RECORD.md v1.3): the drand round, verified by server/audit/drand.py.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from server.audit import receipts
from server.domain import timing
from server.domain.model import Figures, Status, TournamentInfo

RECORD_FORMAT = "samedeal-record/1"
BUNDLE_FORMAT = "samedeal-bundle/1"


class _Model(BaseModel):
    """Strict: every field has its JSON type exactly (no "7" or 7.0 or true for 7), so a
    file means one thing to every reader; what does not fit is unreadable."""

    model_config = ConfigDict(extra="ignore", strict=True)


class RecordBeacon(_Model):
    """The drand round a tournament's deal seed comes from (hex strings); `signature` is
    absent only for a tournament voided for want of its round."""

    network: str
    chain_hash: str
    round: int
    signature: str | None = None
    previous_signature: str | None = None


class RecordBattle(_Model):
    """v1.4: a team battle's named clubs (ids) and how many entries count per club."""

    clubs: list[int]
    counted: int


class RecordTournament(_Model):
    id: int
    name: str
    game: str
    options: dict[str, Any] = Field(default_factory=dict)
    commitment: str
    seed: str | None
    starts_at: str
    ends_at: str
    time_limit_s: int | None = None
    deal_attempt: int = 0
    solution: list[dict[str, Any]] | None = None
    closed_at: str | None = None
    beacon: RecordBeacon | None = None
    club: int | None = None  # v1.4: a club event's club
    battle: RecordBattle | None = None  # v1.4: a team battle


class RecordPlayer(_Model):
    id: int
    name: str
    bot: bool = False  # a bot's entry (never rated)


class RecordAction(_Model):
    """seq and at_ms are JSON integers, as the log chain hashes them."""

    seq: int
    at_ms: int
    action: dict[str, Any]


class RecordResult(_Model):
    """A record's `result` as read (validated JSON); `figures` is what it claims."""

    status: Literal["playing", "won", "lost", "resigned", "timed_out"]
    progress: int
    resets: int
    time_ms: int
    score: int

    @property
    def figures(self) -> Figures:
        return Figures(
            status=Status(self.status),
            progress=self.progress,
            resets=self.resets,
            score=self.score,
            time_ms=self.time_ms,
        )


class RecordPar(_Model):
    """`par`: the best result a search found on the entry's deal and stream, and the
    actions (PROTOCOL.md objects) that reach it."""

    progress: int
    resets: int
    line: list[dict[str, Any]]


class Disqualification(_Model):
    """An operator's disqualification of one entry: why, and when (ISO time)."""

    reason: str
    at: str


class Amendment(_Model):
    """A bundle's amendment, by `kind` (v1.4; none: a disqualification): a
    disqualification made after the close (`player` the name, `reason`), or an
    erasure (`player_id`: an account deleted after the close). Another kind cannot be
    read."""

    kind: str = "disqualification"
    player: str | None = None  # a disqualification's (server/audit/amended.py checks)
    reason: str | None = None
    player_id: int | None = None  # an erasure's
    at: str


class Record(_Model):
    format: Literal["samedeal-record/1"]
    tournament: RecordTournament
    player: RecordPlayer
    started_at: str
    actions: list[RecordAction]
    result: RecordResult
    log_hash: str | None = None
    par: RecordPar | None = None
    disqualified: Disqualification | None = None  # fair play
    club: int | None = None  # v1.4: in a battle, the club its entry played for


class RowPar(_Model):
    progress: int
    resets: int


class StandingRow(_Model):
    rank: int | None  # None: a disqualified entry
    player: str
    status: str
    progress: int
    resets: int
    time_ms: int
    score: int
    bot: bool = False  # a bot's entry (never rated)
    disqualified: str | None = None  # the reason, for a disqualified entry
    par: RowPar | None = None  # the record's par without its line
    club: int | None = None  # v1.4: in a battle, its record's club (read only there)


class ClubLine(_Model):
    """v1.4: one club's line of a battle bundle's `clubs` (`name` is not checked)."""

    club: int
    name: str
    score: int
    counted_ranks: list[int]


class Bundle(_Model):
    format: Literal["samedeal-bundle/1"]
    tournament: RecordTournament
    records: list[Record]
    standings: list[StandingRow]
    log_root: str | None = None
    amendments: list[Amendment] = Field(default_factory=list)  # in the order made
    clubs: list[ClubLine] | None = None  # v1.4: a battle's club table


def result_of(f: Figures) -> dict[str, Any]:
    """The `result` object of a record: the entry's figures (RECORD.md's field order)."""
    return {
        "status": f.status,
        "progress": f.progress,
        "resets": f.resets,
        "time_ms": f.time_ms,
        "score": f.score,
    }


def record_of(
    tournament: dict[str, Any],
    player: dict[str, Any],
    started_at: str,
    actions: list[dict[str, Any]],
    result: dict[str, Any],
    disqualified: dict[str, str] | None = None,
) -> dict[str, Any]:
    """A samedeal-record/1 document; `actions` are {seq, at_ms, action} objects. Its
    `log_hash` is computed from them. `disqualified` ({"reason", "at"}) only for a
    disqualified entry."""
    extra = {} if disqualified is None else {"disqualified": disqualified}
    return {
        "format": RECORD_FORMAT,
        "tournament": tournament,
        "player": player,
        "started_at": started_at,
        "actions": actions,
        "log_hash": receipts.log_hash(
            tournament["commitment"],
            player["id"],
            ((a["seq"], a["at_ms"], a["action"]) for a in actions),
        ),
        "result": result,
        **extra,
    }


def bundle_of(
    tournament: dict[str, Any],
    records: list[dict[str, Any]],
    standings: list[dict[str, Any]],
    amendments: list[dict[str, str]] | None = None,
) -> dict[str, Any]:
    """A samedeal-bundle/1 document; its `log_root` is over the records' `log_hash`;
    `amendments` ({"player", "reason", "at"}, in order) are disqualifications made after
    the close."""
    return {
        "format": BUNDLE_FORMAT,
        "tournament": tournament,
        "records": records,
        "standings": standings,
        "log_root": receipts.log_root((r["player"]["id"], _log_hash(r)) for r in records),
        "amendments": amendments or [],
    }


def bundle_row(row: dict[str, Any], bot: bool, par: dict[str, int] | None = None) -> dict[str, Any]:
    """A standings row as a bundle carries it: `ranking`'s row (a disqualified
    one has rank None and its reason) with `bot`, `disqualified` on every row (None
    for a ranked one) and `par` ({progress, resets} of the entry's record's par, None
    while it has none), fields in one order."""
    return {
        "rank": row["rank"],
        "player": row["player"],
        "status": row["status"],
        "progress": row["progress"],
        "resets": row["resets"],
        "time_ms": row["time_ms"],
        "score": row["score"],
        "bot": bot,
        "disqualified": row.get("disqualified"),
        "par": par,
    }


def _log_hash(record: dict[str, Any]) -> str:
    claimed = record.get("log_hash")
    if isinstance(claimed, str):
        return claimed
    return receipts.log_hash(
        record["tournament"]["commitment"],
        record["player"]["id"],
        ((a["seq"], a["at_ms"], a["action"]) for a in record["actions"]),
    )


def record_tournament(t: TournamentInfo, seed: str) -> dict[str, Any]:
    """The tournament object of records and bundles (RECORD.md), with `closed_at`; v1.4:
    `club` and `battle` (RECORD.md "Additions (v1.4)"), never an entry code."""
    return {
        "id": t.id,
        "name": t.name,
        "game": t.game,
        "options": t.options,
        "commitment": t.commitment,
        "seed": seed,
        "starts_at": timing.iso(t.starts_at),
        "ends_at": timing.iso(t.ends_at),
        "time_limit_s": t.time_limit_s,
        "deal_attempt": t.deal_attempt,
        "solution": t.solution,
        "closed_at": timing.iso(t.closed_at) if t.closed_at else None,
        **({"beacon": t.beacon} if t.beacon is not None else {}),
        "club": t.club_id,  # v1.4 (never the entry code)
        "battle": t.battle,
    }
