"""The contract's 22 verify cases (tests/data/verify-cases-v1.json): every verifier must
give the verdict each states, and for a failure a reason of the kind in `why`.

Written by an independent implementation before receipts: none carries a log_hash or
log_root, so every one also checks that old records still verify (with a note)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from server.audit.verify import verify_document

CASES: list[dict[str, Any]] = json.loads(
    (Path(__file__).parents[1] / "data" / "verify-cases-v1.json").read_text()
)["cases"]

# `why` -> a fragment our report names for that kind of difference
REASONS = {
    "commitment": "not the commitment",
    "result": ": result ",
    "seq": "expected seq",
    "illegal": "illegal action",
    "redeal stream": "illegal action",  # another player's redeals deal other cards
    "standings": "standings row",
    "tournament": "its tournament differs from the bundle's",
}


def test_there_are_22_cases_of_both_verdicts() -> None:
    assert len(CASES) == 22
    assert {c["expect"] for c in CASES} == {"ok", "fail"}
    assert {c["why"] for c in CASES if c["expect"] == "fail"} == set(REASONS)


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_case(case: dict[str, Any]) -> None:
    report = verify_document(case["document"])
    if case["expect"] == "ok":
        assert report.ok, report.error
        assert report.notes and all(
            "carries no receipts" in n or "carry no" in n for n in report.notes
        )
    else:
        assert not report.ok, f"{case['name']} verified"
        assert REASONS[case["why"]] in (report.error or ""), (case["why"], report.error)


def test_a_redeal_under_another_player_fails_after_that_players_redeal() -> None:
    """The 'redeal stream' case differs only in the player id: the first difference is
    the first action after a redeal, not the deal."""
    case = next(c for c in CASES if c["why"] == "redeal stream")
    doc = case["document"]
    error = verify_document(doc).error or ""
    seq = int(error.split(", seq ")[1].split(":")[0])
    assert any(a["action"]["kind"] == "redeal" for a in doc["actions"][: seq - 1])


def test_the_bundle_case_is_the_log_chain_vectors_root() -> None:
    """The two vector files agree: the Gaps bundle's records chain to log-chain-v1's heads
    and root, so the bundle with its receipts written in verifies, and fails when one
    differs."""
    chains = json.loads((Path(__file__).parents[1] / "data" / "log-chain-v1.json").read_text())
    heads = {int(pid): h for pid, h in chains["root"]["heads_by_player"].items()}
    doc = copy.deepcopy(next(c for c in CASES if "bundle of 4" in c["name"])["document"])
    for rec in doc["records"]:
        rec["log_hash"] = heads[rec["player"]["id"]]
    doc["log_root"] = chains["root"]["root"]
    report = verify_document(doc)
    assert report.ok and report.notes == [], (report.error, report.notes)
    doc["log_root"] = heads[83]
    assert "the log root differs" in (verify_document(doc).error or "")
