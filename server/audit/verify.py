"""Offline verification of records and bundles (docs/RECORDS.md).

`verify_document(data)` checks, with no server and no database: the seed
matches the commitment; every action replays legally from the deal with seq
1, 2, 3... and non-decreasing at_ms; the claimed result follows; a record's
`log_hash` is the chain of its actions (samedeal-log/1); a guaranteed Klondike
solution wins; for a bundle, its `log_root` is over its records' chains and the
standings follow from the results. It stops at the first difference and names it.
A record or bundle written before receipts (no `log_hash` / `log_root`) verifies
with a note that it carries none. A document that is not a record or bundle at all
(wrong shapes, unreadable times, absurd sizes) raises Unreadable.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from server import rng
from server.audit import receipts
from server.audit.records import BUNDLE_FORMAT, RECORD_FORMAT, Bundle, Record, RecordTournament
from server.domain import timing
from server.domain.ranking import Result, standings
from server.games import RULES, GameRules
from server.games.base import ActionError, GameState, Status, first_error


class Mismatch(Exception):
    """The first thing that differs, said in one line."""


class Unreadable(Exception):
    """Not a record or bundle at all."""


@dataclass
class Report:
    """What was checked, in order; `notes` say what could not be checked (records
    written before receipts); `error` is the first difference, if any."""

    checked: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


def verify_document(data: Any) -> Report:
    """Verify a parsed record or bundle; raises Unreadable if it is neither."""
    fmt = data.get("format") if isinstance(data, dict) else None
    report = Report()
    try:
        if fmt == RECORD_FORMAT:
            record = _parse(Record, data, "record")
            verify_record(record, report)
            if record.log_hash is None:
                report.notes.append(f"{_who(record)} carries no receipts: {_NO_LOG_HASH}")
        elif fmt == BUNDLE_FORMAT:
            verify_bundle(_parse(Bundle, data, "bundle"), report)
        else:
            raise Unreadable(f"not a samedeal record or bundle (format {fmt!r})")
    except Mismatch as exc:
        report.error = str(exc)
    return report


_NO_LOG_HASH = "no log_hash (written before samedeal-log/1)"


def _parse(model: type[Record] | type[Bundle], data: dict[str, Any], what: str) -> Any:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise Unreadable(f"{what} is malformed: {first_error(exc)}") from None


def _who(record: Record) -> str:
    return f"record of {record.player.name!r} (player {record.player.id})"


def verify_tournament(t: RecordTournament, report: Report) -> tuple[GameRules[Any, Any], Any]:
    """Seed against commitment, game and options; returns the rules and options."""
    if t.seed is None:
        raise Mismatch(f"tournament {t.id}: the seed is not revealed")
    try:
        seed = rng.parse_seed(t.seed)
    except ValueError as exc:
        raise Mismatch(f"tournament {t.id}: bad seed: {exc}") from None
    if rng.commitment(seed) != t.commitment:
        raise Mismatch(
            f"tournament {t.id}: sha256(seed) is {rng.commitment(seed)}, "
            f"not the commitment {t.commitment}"
        )
    report.checked.append(f"tournament {t.id}: sha256(seed) equals the commitment")
    rules = RULES.get(t.game)
    if rules is None:
        raise Mismatch(f"tournament {t.id}: unknown game {t.game!r}")
    try:
        options = rules.parse_options(t.options)
    except ValueError as exc:
        raise Mismatch(f"tournament {t.id}: {exc}") from None
    if t.solution is not None:
        verify_solution(rules, seed, options, t, report)
    return rules, options


def verify_solution(
    rules: GameRules[Any, Any], seed: bytes, options: Any, t: RecordTournament, report: Report
) -> None:
    """A stored guaranteed-deal solution must win deal attempt `deal_attempt`."""
    state = rules.new_game(seed, options, player_id=0, deal_attempt=t.deal_attempt)
    for i, raw in enumerate(t.solution or [], start=1):
        try:
            state, _ = state.apply(rules.parse_action(raw))
        except ActionError as exc:
            raise Mismatch(f"tournament {t.id}: solution step {i}: {exc.message}") from None
    if state.status is not Status.WON:
        raise Mismatch(f"tournament {t.id}: the stored solution does not win the deal")
    report.checked.append(
        f"tournament {t.id}: the stored solution ({len(t.solution or [])} actions) "
        f"wins deal attempt {t.deal_attempt}"
    )


def verify_record(record: Record, report: Report, checked_tournament: bool = False) -> Result:
    """Replay one record, compare its claimed result and log hash; returns the result."""
    return _verify_record(record, report, checked_tournament)[0]


def _verify_record(
    record: Record, report: Report, checked_tournament: bool = False
) -> tuple[Result, str]:
    """The record's result and the log hash its actions give."""
    t = record.tournament
    if checked_tournament:
        rules = RULES[t.game]
        options = rules.parse_options(t.options)
    else:
        rules, options = verify_tournament(t, report)
    who = _who(record)
    state = _replay(rules, options, record, who)
    result = record.result
    expected_status = state.status if state.status is not Status.PLAYING else Status.TIMED_OUT
    _same(who, "status", expected_status.value, result.status)
    _same(who, "progress", state.progress, result.progress)
    _same(who, "resets", state.resets, result.resets)
    _same(who, "score", state.score, result.score)
    _same(who, "time_ms", _expected_time_ms(record, expected_status, who), result.time_ms)
    log_hash = receipts.log_hash(
        t.commitment, record.player.id, ((a.seq, a.at_ms, a.action) for a in record.actions)
    )
    if record.log_hash is not None and record.log_hash.lower() != log_hash:
        raise Mismatch(
            f"{who}: the log hash differs: its actions give {log_hash}, "
            f"the record claims {record.log_hash}"
        )
    report.checked.append(
        f"{who}: {len(record.actions)} actions replay legally; result {result.status}, "
        f"progress {result.progress}, resets {result.resets}, time {result.time_ms} ms"
        + ("" if record.log_hash is None else "; log_hash is their chain")
    )
    played = Result(
        record.player.name,
        result.status,
        result.progress,
        result.resets,
        result.time_ms,
        result.score,
    )
    return played, log_hash


def _replay(rules: GameRules[Any, Any], options: Any, record: Record, who: str) -> GameState[Any]:
    t = record.tournament
    seed = bytes.fromhex(t.seed or "")
    state = rules.new_game(seed, options, player_id=record.player.id, deal_attempt=t.deal_attempt)
    last_ms = 0
    for expected_seq, entry in enumerate(record.actions, start=1):
        where = f"{who}, seq {entry.seq}"
        if entry.seq != expected_seq:
            raise Mismatch(f"{who}: expected seq {expected_seq}, found seq {entry.seq}")
        if entry.at_ms < last_ms:
            raise Mismatch(f"{where}: at_ms {entry.at_ms} is before the previous {last_ms}")
        last_ms = entry.at_ms
        try:
            state, _ = state.apply(rules.parse_action(entry.action))
        except ActionError as exc:
            raise Mismatch(f"{where}: illegal action {entry.action}: {exc.message}") from None
    return state


def _expected_time_ms(record: Record, status: Status, who: str) -> int:
    """Ended by play: the last action's at_ms. Timed out: the game's deadline."""
    t = record.tournament
    if status is not Status.TIMED_OUT:
        return record.actions[-1].at_ms if record.actions else 0
    try:
        started = timing.parse_iso(record.started_at)
        end = timing.parse_iso(t.ends_at)  # a late close (a server down at ends_at)
        if t.closed_at:  # ends no game after its deadline; an early one ends them all
            end = min(end, timing.parse_iso(t.closed_at))
        return timing.ms_between(started, timing.deadline(started, t.time_limit_s, end))
    except (ValueError, OverflowError) as exc:
        raise Unreadable(f"{who}: its times cannot be read: {exc}") from None


def _same(who: str, what: str, expected: object, claimed: object) -> None:
    if expected != claimed:
        raise Mismatch(f"{who}: result {what} is {claimed!r}, the replay gives {expected!r}")


def verify_bundle(bundle: Bundle, report: Report) -> None:
    """Every record, the log root over their chains, then the standings recomputed
    from their results."""
    t = bundle.tournament
    verify_tournament(t, report)
    results: list[Result] = []
    chains: list[tuple[int, str]] = []
    seen: set[str] = set()
    seen_ids: set[int] = set()
    for record in bundle.records:
        if record.tournament.model_dump() != t.model_dump():
            raise Mismatch(
                f"record of {record.player.name!r}: its tournament differs from the bundle's"
            )
        if record.player.name.casefold() in seen:
            raise Mismatch(f"record of {record.player.name!r}: the player appears twice")
        if record.player.id in seen_ids:
            raise Mismatch(f"{_who(record)}: the player id appears twice")
        seen.add(record.player.name.casefold())
        seen_ids.add(record.player.id)
        result, log_hash = _verify_record(record, report, checked_tournament=True)
        results.append(result)
        chains.append((record.player.id, log_hash))
    old = sum(1 for record in bundle.records if record.log_hash is None)
    if old:
        report.notes.append(
            f"{old} of {len(bundle.records)} records carry no receipts: {_NO_LOG_HASH}"
        )
    root = receipts.log_root(chains)
    if bundle.log_root is None:
        report.notes.append(
            "the bundle carries no receipts: no log_root (written before samedeal-log/1)"
        )
    elif bundle.log_root.lower() != root:
        raise Mismatch(
            f"bundle: the log root differs: its records give {root}, "
            f"the bundle claims {bundle.log_root}"
        )
    else:
        report.checked.append(f"bundle: log_root is over the {len(chains)} records' chains")
    expected = [s.as_dict() for s in standings(results)]
    claimed = [row.model_dump() for row in bundle.standings]
    if len(expected) != len(claimed):
        raise Mismatch(f"standings have {len(claimed)} rows, the records give {len(expected)}")
    for i, (want, got) in enumerate(zip(expected, claimed, strict=True), start=1):
        if want != got:
            raise Mismatch(f"standings row {i} is {got}, the records give {want}")
    report.checked.append(f"standings: {len(claimed)} rows follow from the results")
