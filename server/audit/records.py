"""The record (samedeal-record/1) and bundle (samedeal-bundle/1) formats.

Readers ignore fields they do not know; writers write every field. The
tournament object carries one field beyond the contract, `closed_at`, the
moment it actually closed (an early close ends timed-out games there).
A record carries `log_hash` and a bundle `log_root` (receipts, samedeal-log/1:
server/audit/receipts.py); both are optional to readers, since records written
before receipts have neither. A tournament that took its deal from a public beacon
carries `beacon` (RECORD.md v1.3): the drand round, verified by server/audit/beacon.py.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from server.audit import receipts

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


class RecordPlayer(_Model):
    id: int
    name: str


class RecordAction(_Model):
    """seq and at_ms are JSON integers, as the log chain hashes them."""

    seq: int
    at_ms: int
    action: dict[str, Any]


class RecordResult(_Model):
    status: Literal["playing", "won", "lost", "resigned", "timed_out"]
    progress: int
    resets: int
    time_ms: int
    score: int


class RecordPar(_Model):
    """v1.3 `par`: the best result a search found on the entry's deal and stream, and the
    actions (PROTOCOL.md objects) that reach it."""

    progress: int
    resets: int
    line: list[dict[str, Any]]


class Record(_Model):
    format: Literal["samedeal-record/1"]
    tournament: RecordTournament
    player: RecordPlayer
    started_at: str
    actions: list[RecordAction]
    result: RecordResult
    log_hash: str | None = None
    par: RecordPar | None = None


class StandingRow(_Model):
    rank: int
    player: str
    status: str
    progress: int
    resets: int
    time_ms: int
    score: int


class Bundle(_Model):
    format: Literal["samedeal-bundle/1"]
    tournament: RecordTournament
    records: list[Record]
    standings: list[StandingRow]
    log_root: str | None = None


def result_of(status: str, progress: int, resets: int, time_ms: int, score: int) -> dict[str, Any]:
    """The `result` object of a record."""
    return {
        "status": status,
        "progress": progress,
        "resets": resets,
        "time_ms": time_ms,
        "score": score,
    }


def record_of(
    tournament: dict[str, Any],
    player: dict[str, Any],
    started_at: str,
    actions: list[dict[str, Any]],
    result: dict[str, Any],
) -> dict[str, Any]:
    """A samedeal-record/1 document; `actions` are {seq, at_ms, action} objects. Its
    `log_hash` is computed from them."""
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
    }


def bundle_of(
    tournament: dict[str, Any], records: list[dict[str, Any]], standings: list[dict[str, Any]]
) -> dict[str, Any]:
    """A samedeal-bundle/1 document; its `log_root` is over the records' `log_hash`."""
    return {
        "format": BUNDLE_FORMAT,
        "tournament": tournament,
        "records": records,
        "standings": standings,
        "log_root": receipts.log_root((r["player"]["id"], _log_hash(r)) for r in records),
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
