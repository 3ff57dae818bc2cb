"""Replaying one tournament's deal and one record's log (server/audit/replay.py): the
seed against its commitment, game and options, a stored solution, every action in order,
the claimed result and log hash, and par. The first difference is a `Mismatch` whose
sentence has its own catalogue key."""

from __future__ import annotations

import copy
import random
from collections.abc import Callable
from typing import Any

import pytest

from server.audit.records import Record, RecordTournament
from server.audit.replay import (
    Mismatch,
    Report,
    bare,
    verify_par,
    verify_record,
    verify_record_chain,
    verify_tournament,
)
from server.games import RULES
from server.games.base import Status
from server.games.gaps import GAPS, deal_grid
from server.games.gaps_par import par_for
from server.games.gaps_search import SearchLimits, prove_win
from tests.support import factories

SEED = bytes.fromhex("e4c537b6139465e60d1e3dc91d26a884e7b04b4d57558cedeb4b13dff5d68d97")
QUICK_WIN = (4).to_bytes(4, "big") * 8  # attempt 0 is proven won within 100 positions


def a_record(moves: int = 40, resign: bool = True) -> dict[str, Any]:
    t = factories.tournament(SEED)
    actions = factories.play_gaps(SEED, 3, moves, random.Random(3), resign)
    return factories.record(t, 3, "ana", actions)


def mismatch_key(check: Callable[[], object]) -> str:
    with pytest.raises(Mismatch) as info:
        check()
    return str(info.value.args[0].key)


def test_a_correct_record_replays_to_its_result_and_log_hash() -> None:
    doc = a_record()
    report = Report()
    result, log_hash = verify_record_chain(Record.model_validate(doc), report)
    assert report.ok and log_hash == doc["log_hash"]
    assert result.player == "ana" and result.figures == factories.figures(**doc["result"])
    assert result.figures.status is Status.RESIGNED
    assert [line.key for line in report.checked] == ["audit.commitment", "audit.replayed_chained"]


def test_a_game_still_playing_at_the_close_timed_out_at_its_deadline() -> None:
    doc = a_record(resign=False)
    assert doc["result"]["status"] == "timed_out" and doc["result"]["time_ms"] == 900_000
    result = verify_record(Record.model_validate(doc), Report())
    assert result.figures.status is Status.TIMED_OUT and result.figures.time_ms == 900_000


def tampered(change: Callable[[dict[str, Any]], object]) -> Record:
    doc = copy.deepcopy(a_record())
    change(doc)
    return Record.model_validate(doc)


def _set(path: str, value: object) -> Callable[[dict[str, Any]], None]:
    def change(doc: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        for p in parents:
            doc = doc[p] if not p.isdigit() else doc[int(p)]  # type: ignore[index]
        doc[last] = value

    return change


@pytest.mark.parametrize(
    ("change", "key"),
    [
        (_set("tournament.seed", None), "audit.diff.seed_hidden"),
        (_set("tournament.seed", "zz"), "audit.diff.bad_seed"),
        (_set("tournament.commitment", "0" * 64), "audit.diff.commitment"),
        (_set("tournament.game", "chess"), "audit.diff.unknown_game"),
        (_set("tournament.options", {"redeals": 99}), "audit.diff.options"),
        (_set("actions.1.seq", 9), "audit.diff.seq"),
        (_set("actions.1.at_ms", 1), "audit.diff.at_ms"),
        (_set("actions.0.action", {"kind": "redeal"}), "audit.diff.illegal"),
        (_set("result.score", 1), "audit.diff.result"),
        (_set("result.time_ms", 1), "audit.diff.result"),
        (_set("log_hash", "ab" * 32), "audit.diff.log_hash"),
    ],
)
def test_the_first_difference_is_a_mismatch_saying_which(
    change: Callable[[dict[str, Any]], None], key: str
) -> None:
    assert mismatch_key(lambda: verify_record(tampered(change), Report())) == key


def test_a_record_before_receipts_is_replayed_without_a_log_hash() -> None:
    report = Report()
    verify_record(tampered(_set("log_hash", None)), report)
    assert report.checked[-1].key == "audit.replayed"


def test_a_tournament_checked_already_is_not_checked_again() -> None:
    report = Report()
    verify_record(Record.model_validate(a_record()), report, checked_tournament=True)
    assert [line.key for line in report.checked] == ["audit.replayed_chained"]


def solved_tournament(line: list[dict[str, Any]]) -> RecordTournament:
    t = factories.tournament(QUICK_WIN, options={"redeals": 0})
    return RecordTournament.model_validate({**t, "solution": line})


def test_a_stored_solution_must_win_the_deal() -> None:
    win = prove_win(deal_grid(QUICK_WIN), 1_000)
    assert win is not None
    report = Report()
    rules, options = verify_tournament(solved_tournament(win), report)
    assert rules is RULES["gaps"] and options == GAPS.parse_options({"redeals": 0})
    assert report.checked[-1].key == "audit.solution"
    short = solved_tournament(win[:-1])
    assert mismatch_key(lambda: verify_tournament(short, Report())) == "audit.diff.solution_loses"
    bad = solved_tournament([{"kind": "redeal"}, *win])
    assert mismatch_key(lambda: verify_tournament(bad, Report())) == "audit.diff.solution_step"


def with_par(par: dict[str, Any]) -> Record:
    return tampered(lambda doc: doc.update(par=par))


def test_a_par_replays_to_what_it_claims_and_is_no_worse_than_the_entry() -> None:
    doc = a_record()
    witness = [a["action"] for a in doc["actions"]]
    par = par_for(SEED, doc["tournament"]["options"], 3, witness, SearchLimits(total=2_000))
    record = with_par(par.as_dict())
    report = Report()
    verify_par(RULES["gaps"], GAPS.parse_options({"redeals": 2}), record, report)
    assert report.checked[-1].key == "audit.par"
    assert verify_record(record, Report()).player == "ana"  # the record's own check too


@pytest.mark.parametrize(
    ("par", "key"),
    [
        ({"progress": 0, "resets": 0, "line": [{"kind": "redeal"}]}, "audit.diff.par_step"),
        ({"progress": 40, "resets": 0, "line": []}, "audit.diff.par_reaches"),
        ({"progress": 0, "resets": 0, "line": []}, "audit.diff.par_worse"),
    ],
)
def test_a_wrong_par_is_a_mismatch(par: dict[str, Any], key: str) -> None:
    record = with_par(par)
    options = GAPS.parse_options({"redeals": 2})
    if key == "audit.diff.par_worse":
        assert record.result.progress > 0  # the entry reached more than the deal's 0
    assert mismatch_key(lambda: verify_par(RULES["gaps"], options, record, Report())) == key


def test_bare_cuts_a_long_claim() -> None:
    assert bare("ab" * 10) == "ab" * 10
    assert bare("a" * 200) == "a" * 80 + "…"
