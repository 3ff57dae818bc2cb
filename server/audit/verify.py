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

Files come from strangers: `parse_json` turns bytes into the document within `Limits`
(size, nesting, number length, containers, duplicate keys, UTF-8), and `verify_document`
bounds records per bundle and actions per record, and checks a bundle's records one at
a time and a record's actions a chunk at a time (all their shapes first, then the
replays), so memory holds the parsed file and one record's fields, no model per action.
Every message quotes what the file says through `show`: short, one line.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from pydantic import TypeAdapter, ValidationError

from server import rng
from server.audit import amended, receipts
from server.audit.records import (
    BUNDLE_FORMAT,
    RECORD_FORMAT,
    Bundle,
    Record,
    RecordAction,
    RecordTournament,
)
from server.audit.untrusted import LIMITS, Limits, Unreadable, one_line, show
from server.domain import timing
from server.domain.ranking import Result
from server.games import RULES, GameRules
from server.games.base import ActionError, GameState, Status


class Mismatch(Exception):
    """The first thing that differs, said in one line."""


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


def verify_document(data: Any, limits: Limits = LIMITS) -> Report:
    """Verify a parsed record or bundle; raises Unreadable if it is neither, or if it is
    past `limits` (records in a bundle, actions in a record or solution). Every shape is
    checked before anything is compared: a malformed record anywhere in a bundle makes
    it unreadable, not a difference."""
    fmt = data.get("format") if isinstance(data, dict) else None
    report = Report()
    try:
        if fmt == RECORD_FORMAT:
            record = _record(data, limits, "record")
            verify_record(record, report)
            if record.log_hash is None:
                report.notes.append(f"{_who(record)} carries no receipts: {_NO_LOG_HASH}")
        elif fmt == BUNDLE_FORMAT:
            verify_bundle(_bundle(data, limits), report, limits)
        else:
            raise Unreadable(f"not a samedeal record or bundle (format {show(fmt)})")
    except Mismatch as exc:
        report.error = one_line(str(exc))
    except Unreadable as exc:
        raise Unreadable(one_line(str(exc))) from None
    return report


_NO_LOG_HASH = "no log_hash (written before samedeal-log/1)"


class _BundleHead(Bundle):
    """A bundle whose records are still raw: they are read one at a time."""

    records: list[Any]


def _bundle(data: dict[str, Any], limits: Limits) -> _BundleHead:
    """The bundle's own fields, then every record's shape (each dropped once checked)."""
    records = data.get("records")
    if isinstance(records, list) and len(records) > limits.max_records:
        raise Unreadable(
            f"bundle has {len(records):,} records, the limit is {limits.max_records:,}"
        )
    head: _BundleHead = _parse(_BundleHead, data, "bundle")
    _solution_within(head.tournament, limits, "bundle")
    for i, raw in enumerate(head.records):
        _record(raw, limits, "bundle", f"records.{i}")
    return head


class _RecordHead(Record):
    """A record whose actions stay raw: their shapes are checked a chunk at a time, and
    the replay reads them as they are (no model per action)."""

    actions: list[Any]


_ACTION_CHUNK = 4096  # actions validated at once: the models of one chunk are in memory
_ACTIONS: TypeAdapter[list[RecordAction]] = TypeAdapter(list[RecordAction])


def _record(
    data: Any, limits: Limits, what: str, where: str = "", actions_checked: bool = False
) -> Record:
    """A record's fields, then every action's shape, a chunk at a time (dropped once
    checked: a record of a million actions would hold a million models at once), unless
    `actions_checked` says an earlier pass did."""
    actions = data.get("actions") if isinstance(data, dict) else None
    if isinstance(actions, list) and len(actions) > limits.max_actions:
        raise Unreadable(
            f"{what} is malformed: {where + ': ' if where else ''}{len(actions):,} actions, "
            f"the limit is {limits.max_actions:,}"
        )
    record: _RecordHead = _parse(_RecordHead, data, what, where)
    _solution_within(record.tournament, limits, what)
    for start in range(0, 0 if actions_checked else len(record.actions), _ACTION_CHUNK):
        try:
            _ACTIONS.validate_python(record.actions[start : start + _ACTION_CHUNK])
        except ValidationError as exc:
            err = exc.errors()[0]
            index, *rest = err["loc"]
            loc = [*([where] if where else []), "actions", str(start + int(index)), *map(str, rest)]
            raise Unreadable(f"{what} is malformed: {'.'.join(loc)}: {err['msg']}") from None
    return record


def _entries(record: Record) -> Iterator[tuple[int, int, dict[str, Any]]]:
    """The record's actions as (seq, at_ms, action): from the models, or straight from
    the raw entries of a record `_record` read (it checked every one's types)."""
    actions: list[Any] = record.actions  # models, or raw entries in a _RecordHead
    for a in actions:
        if isinstance(a, RecordAction):
            yield a.seq, a.at_ms, a.action
        else:
            yield a["seq"], a["at_ms"], a["action"]


def _solution_within(t: RecordTournament, limits: Limits, what: str) -> None:
    if t.solution is not None and len(t.solution) > limits.max_actions:
        raise Unreadable(
            f"{what} is malformed: a solution of {len(t.solution):,} steps, "
            f"the limit is {limits.max_actions:,}"
        )


def _parse(model: type[Any], data: Any, what: str, where: str = "") -> Any:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = ".".join([where, *(str(p) for p in err["loc"])] if where else map(str, err["loc"]))
        raise Unreadable(f"{what} is malformed: {loc + ': ' if loc else ''}{err['msg']}") from None


def _bare(text: str) -> str:
    """A claimed hash or commitment as it stands, cut short (no quotes: they are hex)."""
    return text if len(text) <= 80 else text[:80] + "…"


def _row(row: dict[str, Any]) -> str:
    return "{" + ", ".join(f"{k!r}: {show(v)}" for k, v in row.items()) + "}"


def _who(record: Record) -> str:
    return f"record of {show(record.player.name)} (player {record.player.id})"


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
            f"not the commitment {_bare(t.commitment)}"
        )
    report.checked.append(f"tournament {t.id}: sha256(seed) equals the commitment")
    rules = RULES.get(t.game)
    if rules is None:
        raise Mismatch(f"tournament {t.id}: unknown game {show(t.game)}")
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
    state, last_ms, log_hash = _replay(rules, options, record, who)
    result = record.result
    expected_status = state.status if state.status is not Status.PLAYING else Status.TIMED_OUT
    _same(who, "status", expected_status.value, result.status)
    _same(who, "progress", state.progress, result.progress)
    _same(who, "resets", state.resets, result.resets)
    _same(who, "score", state.score, result.score)
    _same(who, "time_ms", _expected_time_ms(record, expected_status, last_ms, who), result.time_ms)
    if record.log_hash is not None and record.log_hash.lower() != log_hash:
        raise Mismatch(
            f"{who}: the log hash differs: its actions give {log_hash}, "
            f"the record claims {_bare(record.log_hash)}"
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


def _replay(
    rules: GameRules[Any, Any], options: Any, record: Record, who: str
) -> tuple[GameState[Any], int, str]:
    """The state after the record's actions, the last at_ms, and their log hash (the
    samedeal-log/1 chain, made in the same pass)."""
    t = record.tournament
    seed = bytes.fromhex(t.seed or "")
    state = rules.new_game(seed, options, player_id=record.player.id, deal_attempt=t.deal_attempt)
    head = receipts.genesis(t.commitment, record.player.id)
    last_ms = 0
    for expected_seq, (seq, at_ms, action) in enumerate(_entries(record), start=1):
        where = f"{who}, seq {seq}"
        if seq != expected_seq:
            raise Mismatch(f"{who}: expected seq {expected_seq}, found seq {seq}")
        if at_ms < last_ms:
            raise Mismatch(f"{where}: at_ms {at_ms} is before the previous {last_ms}")
        last_ms = at_ms
        try:
            state, _ = state.apply(rules.parse_action(action))
        except ActionError as exc:
            raise Mismatch(f"{where}: illegal action {show(action)}: {exc.message}") from None
        head = receipts.step(head, seq, at_ms, receipts.action_text(action))
    return state, last_ms, head.hex()


def _expected_time_ms(record: Record, status: Status, last_ms: int, who: str) -> int:
    """Ended by play: the last action's at_ms (0 with none). Timed out: the deadline."""
    t = record.tournament
    if status is not Status.TIMED_OUT:
        return last_ms
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
        raise Mismatch(
            f"{who}: result {what} is {show(claimed)}, the replay gives {show(expected)}"
        )


def verify_bundle(bundle: Bundle, report: Report, limits: Limits = LIMITS) -> None:
    """Every record, the log root over their chains, then the standings recomputed
    from their results. Records may still be raw (as `verify_document` passes them):
    each is read when its turn comes and dropped after, so memory holds one."""
    t = bundle.tournament
    verify_tournament(t, report)
    bundle_tournament = t.model_dump()
    results: list[Result] = []
    marks: list[amended.Mark] = []  # fair play: each record's bot and disqualification
    chains: list[tuple[int, str]] = []
    seen: set[str] = set()
    seen_ids: set[int] = set()
    old = 0
    for i, raw in enumerate(bundle.records):
        record = (
            raw
            if isinstance(raw, Record)
            else _record(raw, limits, "bundle", f"records.{i}", actions_checked=True)
        )
        if record.tournament.model_dump() != bundle_tournament:
            raise Mismatch(
                f"record of {show(record.player.name)}: its tournament differs from the bundle's"
            )
        if record.player.name.casefold() in seen:
            raise Mismatch(f"record of {show(record.player.name)}: the player appears twice")
        if record.player.id in seen_ids:
            raise Mismatch(f"{_who(record)}: the player id appears twice")
        seen.add(record.player.name.casefold())
        seen_ids.add(record.player.id)
        result, log_hash = _verify_record(record, report, checked_tournament=True)
        results.append(result)
        marks.append(amended.Mark(record.player.name, record.player.bot, record.disqualified))
        chains.append((record.player.id, log_hash))
        old += record.log_hash is None
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
            f"the bundle claims {_bare(bundle.log_root)}"
        )
    else:
        report.checked.append(f"bundle: log_root is over the {len(chains)} records' chains")
    expected = _fair_standings(bundle, results, marks, report)
    claimed = [row.model_dump() for row in bundle.standings]
    if len(expected) != len(claimed):
        raise Mismatch(f"standings have {len(claimed)} rows, the records give {len(expected)}")
    for i, (want, got) in enumerate(zip(expected, claimed, strict=True), start=1):
        if want != got:
            raise Mismatch(f"standings row {i} is {_row(got)}, the records give {_row(want)}")
    report.checked.append(f"standings: {len(claimed)} rows follow from the results")


def _fair_standings(
    bundle: Bundle, results: list[Result], marks: list[amended.Mark], report: Report
) -> list[dict[str, Any]]:
    """The standings rows the results give with every amendment applied (fair play,
    server/audit/amended.py): a bundle ranking a disqualified entry, or ignoring an
    amendment, then differs from them."""
    try:
        rows, disqualified = amended.expected_rows(
            results, marks, bundle.amendments, bundle.tournament.closed_at
        )
    except amended.Difference as exc:
        raise Mismatch(str(exc)) from None
    if disqualified:
        report.checked.append(
            f"fair play: {disqualified} disqualified, {len(bundle.amendments)} of them by "
            "amendments after the close; the others ranked without them"
        )
    return rows
