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

Files come from strangers: `parse_json` turns bytes into the document within `ReadLimits`
(size, nesting, number length, containers, duplicate keys, UTF-8), and `verify_document`
bounds records per bundle and actions per record, and checks a bundle's records one at
a time and a record's actions a chunk at a time (all their shapes first, then the
replays), so memory holds the parsed file and one record's fields, no model per action.
Every message quotes what the file says through `show`: short, one line.

A tournament with a public beacon (RECORD.md v1.3) has its round verified against its
network's pinned public key (server/audit/beacon_check.py; networks beyond the built-in
ones come with `networks`), and every deal is replayed from the deal seed derived from it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from pydantic import TypeAdapter, ValidationError

from server.audit import amended, battle, receipts
from server.audit.drand import Network
from server.audit.oneline import said_line
from server.audit.records import (
    BUNDLE_FORMAT,
    RECORD_FORMAT,
    Bundle,
    Record,
    RecordAction,
    RecordTournament,
    StandingRow,
)
from server.audit.replay import (
    BUILT_IN,
    Mismatch,
    Report,
    bare,
    record_of,
    verify_record,
    verify_record_chain,
    verify_tournament,
    who_of,
)
from server.audit.untrusted import (
    LIMITS,
    JsonStream,
    NotAnObject,
    ReadLimits,
    Unreadable,
    show,
)
from server.domain.names import name_key
from server.domain.ranking import Result
from server.i18n.said import Said, said


def verify_document(
    data: Any, limits: ReadLimits = LIMITS, networks: Mapping[str, Network] = BUILT_IN
) -> Report:
    """Verify a parsed record or bundle; raises Unreadable if it is neither, or if it is
    past `limits` (records in a bundle, actions in a record or solution). Every shape is
    checked before anything is compared: a malformed record anywhere in a bundle makes
    it unreadable, not a difference."""
    fmt = data.get("format") if isinstance(data, dict) else None
    report = Report()
    try:
        if fmt == RECORD_FORMAT:
            record = _record(data, limits, "record")
            verify_record(record, report, networks=networks)
            if record.log_hash is None:
                report.notes.append(said("audit.record_no_receipts", who=who_of(record)))
        elif fmt == BUNDLE_FORMAT:
            verify_bundle(_bundle(data, limits), report, limits, networks)
        else:
            raise Unreadable(said("audit.unreadable.format", format=show(fmt)))
    except Mismatch as exc:
        report.error = said_line(exc)
    except Unreadable as exc:
        raise Unreadable(said_line(exc)) from None
    return report


class _BundleHead(Bundle):
    """A bundle whose records are still raw: they are read one at a time."""

    records: list[Any]


def _bundle(data: dict[str, Any], limits: ReadLimits) -> _BundleHead:
    """The bundle's own fields, then every record's shape (each dropped once checked)."""
    records = data.get("records")
    if isinstance(records, list) and len(records) > limits.max_records:
        raise Unreadable(
            said("audit.unreadable.records", n=f"{len(records):,}", max=f"{limits.max_records:,}")
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
    data: Any, limits: ReadLimits, what: str, where: str = "", actions_checked: bool = False
) -> Record:
    """A record's fields, then every action's shape, a chunk at a time (dropped once
    checked: a record of a million actions would hold a million models at once), unless
    `actions_checked` says an earlier pass did."""
    actions = data.get("actions") if isinstance(data, dict) else None
    if isinstance(actions, list) and len(actions) > limits.max_actions:
        at = where + ": " if where else ""
        n, most = f"{len(actions):,}", f"{limits.max_actions:,}"
        raise Unreadable(
            malformed(what, said("audit.unreadable.actions_over", at=at, n=n, max=most))
        )
    record: _RecordHead = _parse(_RecordHead, data, what, where)
    _solution_within(record.tournament, limits, what)
    _par_within(record, limits, what)
    for start in range(0, 0 if actions_checked else len(record.actions), _ACTION_CHUNK):
        try:
            _ACTIONS.validate_python(record.actions[start : start + _ACTION_CHUNK])
        except ValidationError as exc:
            err = exc.errors()[0]
            index, *rest = err["loc"]
            loc = [*([where] if where else []), "actions", str(start + int(index)), *map(str, rest)]
            raise Unreadable(malformed(what, f"{'.'.join(loc)}: {err['msg']}")) from None
    return record


def _solution_within(t: RecordTournament, limits: ReadLimits, what: str) -> None:
    if t.solution is not None and len(t.solution) > limits.max_actions:
        n, most = f"{len(t.solution):,}", f"{limits.max_actions:,}"
        raise Unreadable(malformed(what, said("audit.unreadable.solution_over", n=n, max=most)))


def _par_within(record: Record, limits: ReadLimits, what: str) -> None:
    if record.par is not None and len(record.par.line) > limits.max_actions:
        n, most = f"{len(record.par.line):,}", f"{limits.max_actions:,}"
        raise Unreadable(malformed(what, said("audit.unreadable.par_over", n=n, max=most)))


def malformed(what: str, detail: str) -> Said:
    """ "`what` ("record" or "bundle") is malformed: `detail`": the sentence said in the
    reader's language, `detail` (pydantic's field path and words, or a limit's `Said`)
    kept as it is (docs/I18N.md)."""
    return said(
        "audit.unreadable.malformed", what=said(f"audit.unreadable.what.{what}"), detail=detail
    )


def _parse(model: type[Any], data: Any, what: str, where: str = "") -> Any:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = ".".join([where, *(str(p) for p in err["loc"])] if where else map(str, err["loc"]))
        raise Unreadable(malformed(what, f"{loc + ': ' if loc else ''}{err['msg']}")) from None


def _dump(row: StandingRow, fought: bool) -> dict[str, Any]:
    """A row as compared: its `club` only in a battle (elsewhere it is not read)."""
    got = row.model_dump()
    if not fought:
        del got["club"]
    return got


def _row(row: dict[str, Any]) -> str:
    return "{" + ", ".join(f"{k!r}: {show(v)}" for k, v in row.items()) + "}"


def verify_bundle(
    bundle: Bundle,
    report: Report,
    limits: ReadLimits = LIMITS,
    networks: Mapping[str, Network] = BUILT_IN,
) -> None:
    """Every record, the log root over their chains, then the standings recomputed
    from their results. Records may still be raw (as `verify_document` passes them):
    each is read when its turn comes and dropped after, so memory holds one."""
    t = bundle.tournament
    verify_tournament(t, report, networks, dealt=bool(bundle.records))
    check = _BundleCheck(t, report, limits)
    for i, raw in enumerate(bundle.records):
        check.record(i, raw, actions_checked=True)
    check.finish(bundle)


class _BundleCheck:
    """A bundle's records checked one at a time as they come (from a parsed bundle, or
    a file read record by record: `verify_bundle_file`), then its root and standings."""

    def __init__(self, t: RecordTournament, report: Report, limits: ReadLimits) -> None:
        self.report, self.limits = report, limits
        self.tournament = t.model_dump()
        self.t = t
        self.results: list[Result] = []
        self.chains: list[tuple[int, str]] = []
        self.seen: set[str] = set()
        self.seen_ids: set[int] = set()
        self.old = 0
        self.marks: list[amended.Mark] = []  # fair play: each record's bot, disqualification
        self.kept: list[StandingRow] | None = None  # rows kept when a record is disqualified

    def record(self, i: int, raw: Any, actions_checked: bool = False) -> Record:
        if i >= self.limits.max_records:
            raise Unreadable(
                said("audit.unreadable.over_records", max=f"{self.limits.max_records:,}")
            )
        record = (
            raw
            if isinstance(raw, Record)
            else _record(raw, self.limits, "bundle", f"records.{i}", actions_checked)
        )
        if record.tournament.model_dump() != self.tournament:
            raise Mismatch(said("audit.diff.tournament_differs", who=record_of(record)))
        b, b_id = record.tournament.beacon, record.tournament.id
        if b is not None and b.signature is None:  # void: no game may have been dealt
            what = said("audit.beacon.round", id=b_id, round=b.round, network=show(b.network))
            raise Mismatch(said("audit.diff.no_signature", what=what))
        if name_key(record.player.name) in self.seen:
            raise Mismatch(said("audit.diff.player_twice", who=record_of(record)))
        if record.player.id in self.seen_ids:
            raise Mismatch(said("audit.diff.player_id_twice", who=who_of(record)))
        self.seen.add(name_key(record.player.name))
        self.seen_ids.add(record.player.id)
        result, log_hash = verify_record_chain(record, self.report, checked_tournament=True)
        self.results.append(result)
        par = (
            None
            if record.par is None
            else {"progress": record.par.progress, "resets": record.par.resets}
        )
        club = battle.club_of(self.t, record)
        self.marks.append(
            amended.Mark(
                record.player.name, record.player.bot, record.disqualified, par, record.player.id,
                club,
            )
        )  # fmt: skip
        self.chains.append((record.player.id, log_hash))
        self.old += record.log_hash is None
        return record

    def finish(self, bundle: Bundle, rows: tuple[int, str | None] | None = None) -> None:
        _finish_bundle(
            bundle, self.report, self.results, self.marks, self.chains, self.old, rows, self.kept
        )

    def compare_rows(self, rows: Iterator[Any]) -> tuple[int, str | None]:
        """The bundle's standings as they are read (after every record), each row
        compared with the one the results give: (rows read, the first difference). When
        a record is disqualified (fair play) the rows depend on the bundle's amendments,
        which may come after them: they are kept and compared in `finish`."""
        if any(m.disqualified is not None for m in self.marks):
            self.kept = [
                _parse(StandingRow, raw, "bundle", f"standings.{i}") for i, raw in enumerate(rows)
            ]
            return len(self.kept), None
        fought = self.t.battle is not None
        expected, _ = amended.expected_rows(self.results, self.marks, [], None, fought)
        count, first = 0, None
        for i, raw in enumerate(rows):
            got = _dump(_parse(StandingRow, raw, "bundle", f"standings.{i}"), fought)
            if first is None and i < len(expected) and (want := expected[i]) != got:
                first = said("audit.diff.row", i=i + 1, got=_row(got), want=_row(want))
            count += 1
        return count, first


def _finish_bundle(
    bundle: Bundle,
    report: Report,
    results: list[Result],
    marks: list[amended.Mark],
    chains: list[tuple[int, str]],
    old: int,
    rows: tuple[int, str | None] | None = None,
    kept: list[StandingRow] | None = None,
) -> None:
    """The log root over the records' chains, then the standings from their results
    (`rows`: already compared as they were read, `_BundleCheck.compare_rows`)."""
    if old:
        report.notes.append(said("audit.records_no_receipts", old=old, n=len(chains)))
    root = receipts.log_root(chains)
    if bundle.log_root is None:
        report.notes.append(said("audit.bundle_no_receipts"))
    elif bundle.log_root.lower() != root:
        raise Mismatch(said("audit.diff.log_root", made=root, claimed=bare(bundle.log_root)))
    else:
        report.checked.append(said("audit.log_root", n=len(chains)))
    if rows is not None and kept is None:
        # the amendments agree with the records
        expected = _fair_standings(bundle, results, marks, report)
        count, first = rows
        if count != len(results):
            raise Mismatch(said("audit.diff.rows", n=count, want=len(results)))
        if first is not None:
            raise Mismatch(first)
        report.checked.append(said("audit.standings", n=count))
        battle.check_clubs(bundle, expected, report)
        return
    claimed = bundle.standings if kept is None else kept
    expected = _fair_standings(bundle, results, marks, report)
    if len(expected) != len(claimed):
        raise Mismatch(said("audit.diff.rows", n=len(claimed), want=len(expected)))
    for i, (want, got_row) in enumerate(zip(expected, claimed, strict=True), 1):
        got = _dump(got_row, bundle.tournament.battle is not None)  # a row at a time
        if want != got:
            raise Mismatch(said("audit.diff.row", i=i, got=_row(got), want=_row(want)))
    report.checked.append(said("audit.standings", n=len(claimed)))
    battle.check_clubs(bundle, expected, report)


def verify_bundle_file(
    path: str,
    limits: ReadLimits = LIMITS,
    player: str | None = None,
    networks: Mapping[str, Network] = BUILT_IN,
) -> tuple[Report, dict[str, Any] | None]:
    """Verify the bundle in the file at `path`, read a record at a time (JsonStream:
    RECORD.md v1.3, "Size"), so memory holds one record, the results and the standings,
    never the file; also the raw record of `player`, if named and there (for a receipt).
    Records are checked in file order as they come, so a malformed record is unreadable
    when it is reached (a difference found before it is reported first). When `records`
    comes before the bundle's `tournament` in the file, it is read twice. Raises
    NotABundle when the file's format is not a bundle's."""
    report = Report()
    kept: dict[str, Any] | None = None
    head: dict[str, Any] = {}
    check: _BundleCheck | None = None
    rows: tuple[int, str | None] | None = None  # standings compared as they were read
    try:
        for key, value in _members(path, limits):
            if key == "format" and value != BUNDLE_FORMAT:
                raise NotABundle()
            if key == "standings" and check is not None and isinstance(value, Iterator):
                rows = check.compare_rows(value)  # after the records: none kept
                head[key] = []
            elif isinstance(value, Iterator) and key != "records":
                head[key] = list(value)  # standings before the records: kept
            elif key != "records":
                head[key] = value
            elif check is None and "tournament" in head and head.get("format") == BUNDLE_FORMAT:
                check = _start(head, report, limits, networks)
                kept = _stream_records(check, value, player)
        if head.get("format") != BUNDLE_FORMAT:
            raise NotABundle()
        bundle: _BundleHead = _parse(_BundleHead, {**head, "records": []}, "bundle")
        if check is None:  # the records came first: read them again, now
            check = _start(head, report, limits, networks)
            for key, value in _members(path, limits):
                if key == "records":
                    kept = _stream_records(check, value, player)
        check.finish(bundle, rows)
    except Mismatch as exc:
        report.error = said_line(exc)
    except NotAnObject:
        raise NotABundle() from None
    except Unreadable as exc:
        raise Unreadable(said_line(exc)) from None
    return report, kept


class NotABundle(Exception):
    """The streamed file is not a bundle (a record, or no format): read it whole."""


def _members(path: str, limits: ReadLimits) -> Iterator[tuple[str, Any]]:
    with open(path, "rb") as f:
        yield from JsonStream(f, limits).members("records", "standings")


def _start(
    head: dict[str, Any], report: Report, limits: ReadLimits, networks: Mapping[str, Network]
) -> _BundleCheck:
    """The bundle's tournament, checked before its records come (how many is not known
    yet: an unsigned beacon round is a note here, and each record refuses it)."""
    t: RecordTournament = _parse(RecordTournament, head["tournament"], "bundle", "tournament")
    _solution_within(t, limits, "bundle")
    verify_tournament(t, report, networks, dealt=False)
    return _BundleCheck(t, report, limits)


def _stream_records(check: _BundleCheck, records: Any, player: str | None) -> dict[str, Any] | None:
    if not isinstance(records, Iterator):
        raise Unreadable(malformed("bundle", "records: Input should be a valid list"))
    kept = None
    for i, raw in enumerate(records):
        record = check.record(i, raw)
        if player is not None and name_key(record.player.name) == name_key(player):
            kept = raw
    return kept


def _fair_standings(
    bundle: Bundle, results: list[Result], marks: list[amended.Mark], report: Report
) -> list[dict[str, Any]]:
    """The standings rows the results give with every amendment applied (fair play,
    server/audit/amended.py): a bundle ranking a disqualified entry, or ignoring an
    amendment, then differs from them."""
    try:
        rows, disqualified = amended.expected_rows(
            results,
            marks,
            bundle.amendments,
            bundle.tournament.closed_at,
            bundle.tournament.battle is not None,
        )
    except amended.Difference as exc:
        raise Mismatch(exc.args[0]) from None
    late = sum(a.kind == "disqualification" for a in bundle.amendments)
    if disqualified:
        report.checked.append(said("audit.fair_play", n=disqualified, late=late))
    if erasures := len(bundle.amendments) - late:
        report.checked.append(said("audit.erasures", n=erasures))
    return rows
