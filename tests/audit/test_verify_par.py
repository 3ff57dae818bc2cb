"""The verifier on v1.3 Gaps additions: `par` in records (its line replayed under the
record's player id), winnable deals (deal attempt and solution), `redeal:
reshuffle_all`; the in-browser verifier gives the same verdict, lines and first
difference on every document (tests/web/js/verify_cli.mjs)."""

from __future__ import annotations

import copy
import random
from pathlib import Path
from typing import Any

import pytest

from server.audit.untrusted import ReadLimits, Unreadable
from server.audit.verify import verify_document
from server.games.gaps import GAPS
from server.games.gaps_par import par_for
from server.games.gaps_search import SearchLimits
from tests.support import factories
from tests.web.support import require_node
from tests.web.test_js import js_verdicts, python_verdict

SEED = bytes.fromhex("e4c537b6139465e60d1e3dc91d26a884e7b04b4d57558cedeb4b13dff5d68d97")
WIN_AT_1 = (13).to_bytes(4, "big") * 8  # the winnable search proves attempt 1
SMALL = SearchLimits(total=8_000, first=2_000, later=1_000, breadth=3)


def _bundle(
    seed: bytes, options: dict[str, Any], attempt: int = 0, solution: Any = None
) -> dict[str, Any]:
    t = factories.tournament(seed, options=options)
    t["deal_attempt"], t["solution"] = attempt, solution
    opts = GAPS.parse_options(options)
    records = []
    for pid in (1, 2, 3):
        rnd = random.Random(pid)
        actions: list[dict[str, Any]] = []
        state = GAPS.new_game(seed, opts, player_id=pid, deal_attempt=attempt)
        for _ in range({1: 40, 2: 400, 3: 0}[pid]):
            legal = state.legal_moves()
            if not legal and state.redeals_used >= state.redeals:
                break
            if legal:
                card, cell = rnd.choice(legal)
                a = {
                    "kind": "move",
                    "card": f"{'A23456789TJQK'[card % 13]}{'CDHS'[card // 13]}",
                    "to": [cell // 13, cell % 13],
                }
            else:
                a = {"kind": "redeal"}
            state, _ = state.apply(GAPS.parse_action(a))
            actions.append(a)
        record = factories.record(t, pid, f"p{pid}", actions)
        record["par"] = par_for(seed, opts, pid, actions, SMALL, deal_attempt=attempt).as_dict()
        records.append(record)
    return factories.bundle(t, records)


@pytest.fixture(scope="module")
def docs() -> dict[str, Any]:
    prepared = GAPS.prepare_deal(WIN_AT_1, GAPS.parse_options({"winnable": True}))
    assert prepared.deal_attempt == 1 and prepared.guaranteed
    good = {
        "keep_runs": _bundle(SEED, {"redeals": 2}),
        "reshuffle_all": _bundle(SEED, {"redeals": 2, "redeal": "reshuffle_all"}),
        "winnable": _bundle(WIN_AT_1, {"winnable": True}, 1, prepared.solution),
    }
    out: dict[str, Any] = dict(good)
    for name, doc in good.items():
        for change, edit in _TAMPER.items():
            bad = copy.deepcopy(doc)
            edit(bad)
            out[f"{name}: {change}"] = bad
        one = copy.deepcopy(doc["records"][0])
        out[f"{name}: record"] = one
    return out


def _longest(b: dict[str, Any]) -> dict[str, Any]:
    record: dict[str, Any] = max(b["records"], key=lambda r: len(r["actions"]))
    return record


def _par(b: dict[str, Any]) -> dict[str, Any]:
    par: dict[str, Any] = _longest(b)["par"]
    return par


def _pop_line(b: dict[str, Any]) -> None:
    line = _par(b)["line"]
    if line:
        line.pop()
    else:
        _par(b)["progress"] += 1


_TAMPER = {
    "par progress": lambda b: _par(b).update(progress=_par(b)["progress"] + 1),
    "par resets": lambda b: _par(b).update(resets=_par(b)["resets"] + 1),
    "par line cut": _pop_line,
    "par line illegal": lambda b: _par(b)["line"].insert(
        0, {"kind": "move", "card": "KS", "to": [0, 0]}
    ),
    "par of another player": lambda b: _longest(b)["player"].update(id=77),
    "par worse than the entry": lambda b: _par(b).update(progress=0, resets=0, line=[]),
    "row par": lambda b: next(
        row for row in b["standings"] if row["player"] == _longest(b)["player"]["name"]
    ).update(par={"progress": _par(b)["progress"] + 1, "resets": _par(b)["resets"]}),
    "row par missing": lambda b: next(
        row for row in b["standings"] if row["player"] == _longest(b)["player"]["name"]
    ).pop("par"),
    "solution cut": lambda b: (
        b["tournament"].update(solution=(b["tournament"]["solution"] or [{}])[:-1])
        or [r["tournament"].update(solution=b["tournament"]["solution"]) for r in b["records"]]
    ),
}


def test_good_documents_verify_with_a_line_per_par(docs: dict[str, Any]) -> None:
    for name in ("keep_runs", "reshuffle_all", "winnable"):
        report = verify_document(docs[name])
        assert report.ok, f"{name}: {report.error}"
        assert sum("par line (" in line for line in report.checked) == 3
    report = verify_document(docs["winnable"])
    assert any("wins deal attempt 1" in line for line in report.checked)


def test_every_tampered_par_is_a_difference(docs: dict[str, Any]) -> None:
    words = {
        "par progress": "par claims progress",
        "par resets": "par claims progress",
        "par line cut": "par claims progress",
        "par line illegal": "par line step 1: illegal action",
        "par of another player": "",  # a different stream, a different deal path
        "par worse than the entry": "worse than the entry's own result",
        "solution cut": "the stored solution does not win",
        "row par": "standings row",
        "row par missing": "standings row",
    }
    for name in ("keep_runs", "reshuffle_all", "winnable"):
        for change, text in words.items():
            doc = docs[f"{name}: {change}"]
            report = verify_document(doc)
            if change == "solution cut" and name != "winnable":
                continue  # no solution to cut: the change only adds one
            assert not report.ok, f"{name}: {change} verified"
            assert text in (report.error or ""), f"{name}: {change}: {report.error}"


def test_an_absurd_par_line_is_unreadable(docs: dict[str, Any]) -> None:
    doc = copy.deepcopy(docs["keep_runs: record"])
    doc["par"]["line"] = [{"kind": "redeal"}] * 41
    with pytest.raises(Unreadable, match="par line of 41 steps, the limit is 40"):
        verify_document(doc, ReadLimits(max_actions=40))


def test_the_browser_verifier_says_the_same_on_every_document(
    docs: dict[str, Any], tmp_path: Path
) -> None:
    node = require_node()
    js = js_verdicts(node, docs, tmp_path)
    for name, doc in docs.items():
        assert js[name] == python_verdict(doc), name
