"""Replaying one tournament's deal and one record's log (docs/RECORDS.md): the seed
against its commitment, the beacon (server/audit/beacon_check.py), the stored solution,
every action from the deal with seq 1, 2, 3... and non-decreasing at_ms, the claimed
result, the log hash and par. server/audit/verify.py reads the documents and bundles
around it; a difference is a `Mismatch` of one line."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from server import rng
from server.audit import drand, receipts
from server.audit.beacon_check import BeaconDifference, check_beacon, dealing_seed
from server.audit.drand import Network
from server.audit.records import Record, RecordAction, RecordTournament
from server.audit.untrusted import Unreadable, show
from server.domain import timing
from server.domain.ranking import Result
from server.games import RULES, GameRules
from server.games.base import ActionError, GameState, Status
from server.i18n.said import Said, said, told

BUILT_IN: Mapping[str, Network] = drand.BUILT_IN


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


def bare(text: str) -> str:
    """A claimed hash or commitment as it stands, cut short (no quotes: they are hex)."""
    return text if len(text) <= 80 else text[:80] + "…"


def who_of(record: Record) -> Said:
    return said("audit.who", name=show(record.player.name), id=record.player.id)


def record_of(record: Record) -> Said:
    return said("audit.record_of", name=show(record.player.name))


def _entries(record: Record) -> Iterator[tuple[int, int, dict[str, Any]]]:
    """The record's actions as (seq, at_ms, action): from the models, or straight from
    the raw entries of a record `_record` read (it checked every one's types)."""
    actions: list[Any] = record.actions  # models, or raw entries in a _RecordHead
    for a in actions:
        if isinstance(a, RecordAction):
            yield a.seq, a.at_ms, a.action
        else:
            yield a["seq"], a["at_ms"], a["action"]


def verify_tournament(
    t: RecordTournament,
    report: Report,
    networks: Mapping[str, Network] = BUILT_IN,
    dealt: bool = True,
) -> tuple[GameRules[Any, Any], Any]:
    """Seed against commitment, the beacon, game and options; returns the rules and
    options. `dealt`: games were dealt (false for a bundle with no records)."""
    if t.seed is None:
        raise Mismatch(said("audit.diff.seed_hidden", id=t.id))
    try:
        seed = rng.parse_seed(t.seed)
    except ValueError as exc:
        raise Mismatch(said("audit.diff.bad_seed", id=t.id, why=str(exc))) from None
    if rng.commitment(seed) != t.commitment:
        raise Mismatch(
            said(
                "audit.diff.commitment",
                id=t.id,
                made=rng.commitment(seed),
                claimed=bare(t.commitment),
            )
        )
    report.checked.append(said("audit.commitment", id=t.id))
    try:
        seed = check_beacon(t, seed, report.checked, report.notes, networks, dealt)
    except BeaconDifference as exc:
        raise Mismatch(exc.args[0]) from None
    rules = RULES.get(t.game)
    if rules is None:
        raise Mismatch(said("audit.diff.unknown_game", id=t.id, game=show(t.game)))
    try:
        options = rules.parse_options(t.options)
    except ValueError as exc:
        raise Mismatch(said("audit.diff.options", id=t.id, why=str(exc))) from None
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
            raise Mismatch(
                said("audit.diff.solution_step", id=t.id, step=i, why=told(exc.reason, exc.message))
            ) from None
    if state.status is not Status.WON:
        raise Mismatch(said("audit.diff.solution_loses", id=t.id))
    report.checked.append(
        said("audit.solution", id=t.id, n=len(t.solution or []), attempt=t.deal_attempt)
    )


def verify_record(
    record: Record,
    report: Report,
    checked_tournament: bool = False,
    networks: Mapping[str, Network] = BUILT_IN,
) -> Result:
    """Replay one record, compare its claimed result and log hash; returns the result."""
    return verify_record_chain(record, report, checked_tournament, networks)[0]


def verify_record_chain(
    record: Record,
    report: Report,
    checked_tournament: bool = False,
    networks: Mapping[str, Network] = BUILT_IN,
) -> tuple[Result, str]:
    """The record's result and the log hash its actions give."""
    t = record.tournament
    if checked_tournament:
        rules = RULES[t.game]
        options = rules.parse_options(t.options)
    else:
        rules, options = verify_tournament(t, report, networks)
    who = who_of(record)
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
            said("audit.diff.log_hash", who=who, made=log_hash, claimed=bare(record.log_hash))
        )
    report.checked.append(
        said(
            "audit.replayed" if record.log_hash is None else "audit.replayed_chained",
            who=who,
            n=len(record.actions),
            status=said(f"audit.status.{expected_status.value}"),
            progress=result.progress,
            resets=result.resets,
            ms=result.time_ms,
        )
    )
    verify_par(rules, options, record, report)
    return Result(record.player.name, result.figures), log_hash


def _dealt(rules: GameRules[Any, Any], options: Any, record: Record) -> GameState[Any]:
    """The deal the record's entry played: from the tournament's dealing seed (a beacon's
    when it has one), under the player's id (the Gaps redeal stream is the player's)."""
    t = record.tournament
    seed = dealing_seed(t)
    return rules.new_game(seed, options, player_id=record.player.id, deal_attempt=t.deal_attempt)


def _applied(
    rules: GameRules[Any, Any], state: GameState[Any], raw: Any, key: str, who: str, **at: int
) -> GameState[Any]:
    """`state` after the action `raw`; one the rules refuse is a Mismatch said by `key`
    with `who`, where it stands (`at`: its seq or step), the action and why."""
    try:
        return state.apply(rules.parse_action(raw))[0]
    except ActionError as exc:
        why = told(exc.reason, exc.message)
        raise Mismatch(said(key, who=who, **at, action=show(raw), why=why)) from None


def verify_par(rules: GameRules[Any, Any], options: Any, record: Record, report: Report) -> None:
    """A record's `par`, when it has one: its line replays legally from the deal
    under the record's player id (the Gaps redeal stream is the player's) and reaches
    exactly the progress and resets it claims, which are no worse than the entry's own."""
    par = record.par
    if par is None:
        return
    who = who_of(record)
    state = _dealt(rules, options, record)
    for i, raw in enumerate(par.line, start=1):
        state = _applied(rules, state, raw, "audit.diff.par_step", who, step=i)
    if (state.progress, state.resets) != (par.progress, par.resets):
        raise Mismatch(
            said(
                "audit.diff.par_reaches",
                who=who,
                progress=par.progress,
                resets=par.resets,
                reached=state.progress,
                reached_resets=state.resets,
            )
        )
    if (par.progress, -par.resets) < (record.result.progress, -record.result.resets):
        raise Mismatch(
            said("audit.diff.par_worse", who=who, progress=par.progress, resets=par.resets)
        )
    report.checked.append(
        said("audit.par", who=who, n=len(par.line), progress=par.progress, resets=par.resets)
    )


def _replay(
    rules: GameRules[Any, Any], options: Any, record: Record, who: str
) -> tuple[GameState[Any], int, str]:
    """The state after the record's actions, the last at_ms, and their log hash (the
    samedeal-log/1 chain, made in the same pass)."""
    state = _dealt(rules, options, record)
    head = receipts.genesis(record.tournament.commitment, record.player.id)
    last_ms = 0
    for expected_seq, (seq, at_ms, action) in enumerate(_entries(record), start=1):
        if seq != expected_seq:
            raise Mismatch(said("audit.diff.seq", who=who, expected=expected_seq, seq=seq))
        if at_ms < last_ms:
            raise Mismatch(said("audit.diff.at_ms", who=who, seq=seq, at_ms=at_ms, last=last_ms))
        last_ms = at_ms
        state = _applied(rules, state, action, "audit.diff.illegal", who, seq=seq)
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
        raise Unreadable(said("audit.unreadable.times", who=who, why=str(exc))) from None


def _same(who: str, what: str, expected: object, claimed: object) -> None:
    if expected != claimed:
        raise Mismatch(
            said(
                "audit.diff.result",
                who=who,
                field=what,
                claimed=show(claimed),
                expected=show(expected),
            )
        )
