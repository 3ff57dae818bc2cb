"""The offline verifier on good and tampered records and bundles."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path

import pytest

from client_cli.__main__ import main as cli_main
from server.audit import receipts
from server.audit.untrusted import Unreadable
from server.audit.verify import verify_document
from tests.support import factories

SEED = bytes.fromhex("e4c537b6139465e60d1e3dc91d26a884e7b04b4d57558cedeb4b13dff5d68d97")


@pytest.fixture
def good_bundle() -> dict:
    t = factories.tournament(SEED)
    records = [
        factories.record(t, pid, name, factories.play_gaps(SEED, pid, n, random.Random(pid), res))
        for pid, name, n, res in [
            (1, "alice", 400, False),
            (2, "bob", 30, True),
            (3, "carol", 12, False),
            (4, "dave", 0, True),
        ]
    ]
    return factories.bundle(t, records)


def test_vector_game_as_a_record_verifies(gaps_game_1) -> None:
    t = factories.tournament(SEED)
    rec = factories.record(t, 1, "p1", gaps_game_1["actions"])
    report = verify_document(rec)
    assert report.ok, report.error
    assert rec["result"]["status"] == "lost" and rec["result"]["progress"] == 23
    assert any("sha256(seed) equals the commitment" in line for line in report.checked)


def test_good_bundle_verifies(good_bundle) -> None:
    report = verify_document(good_bundle)
    assert report.ok, report.error
    statuses = {r["result"]["status"] for r in good_bundle["records"]}
    assert {"resigned", "timed_out"} <= statuses
    assert report.checked[-1] == "standings: 4 rows follow from the results"


def fails(doc: dict, fragment: str) -> None:
    report = verify_document(doc)
    assert not report.ok
    assert fragment in report.error, report.error


def test_changed_seed(good_bundle) -> None:
    bad = copy.deepcopy(good_bundle)
    bad["tournament"]["seed"] = "00" * 32
    fails(bad, "not the commitment")


def test_unrevealed_seed(good_bundle) -> None:
    rec = copy.deepcopy(good_bundle["records"][0])
    rec["tournament"]["seed"] = None
    fails(rec, "not revealed")


def test_illegal_move_names_record_and_seq(good_bundle) -> None:
    rec = copy.deepcopy(good_bundle["records"][1])
    rec["actions"][2]["action"] = {"kind": "move", "card": "KS", "to": [0, 0]}
    fails(rec, "'bob' (player 2), seq 3: illegal action")


def test_action_replayed_under_another_player_id_diverges(good_bundle) -> None:
    rec = copy.deepcopy(good_bundle["records"][0])
    assert any(a["action"]["kind"] == "redeal" for a in rec["actions"])
    rec["player"]["id"] = 99  # redeals are per player: the replay must differ
    assert not verify_document(rec).ok


@pytest.mark.parametrize(
    ("field", "value", "fragment"),
    [
        ("status", "won", "result status"),
        ("progress", 47, "result progress"),
        ("resets", 2, "result resets"),
        ("score", 999, "result score"),
        ("time_ms", 1, "result time_ms"),
    ],
)
def test_wrong_result(good_bundle, field: str, value, fragment: str) -> None:
    rec = copy.deepcopy(good_bundle["records"][1])
    rec["result"][field] = value
    fails(rec, fragment)


def test_timed_out_time_is_the_deadline(good_bundle) -> None:
    rec = next(r for r in good_bundle["records"] if r["result"]["status"] == "timed_out")
    assert rec["result"]["time_ms"] == 900_000  # time_limit_s before the close
    early = copy.deepcopy(rec)
    early["tournament"]["closed_at"] = "2026-11-30T18:05:11.250Z"  # closed early
    fails(early, "result time_ms")
    early["result"]["time_ms"] = 180_000
    assert verify_document(early).ok


def test_hole_in_seq(good_bundle) -> None:
    rec = copy.deepcopy(good_bundle["records"][1])
    del rec["actions"][4]
    fails(rec, "expected seq 5, found seq 6")


def test_at_ms_going_backwards(good_bundle) -> None:
    rec = copy.deepcopy(good_bundle["records"][1])
    rec["actions"][3]["at_ms"] = 1
    fails(rec, "seq 4: at_ms 1 is before")


def test_standings_out_of_order(good_bundle) -> None:
    bad = copy.deepcopy(good_bundle)
    bad["standings"][0], bad["standings"][1] = bad["standings"][1], bad["standings"][0]
    fails(bad, "standings row 1")


def test_standings_wrong_rank_or_missing_row(good_bundle) -> None:
    bad = copy.deepcopy(good_bundle)
    bad["standings"][1]["rank"] = 1
    fails(bad, "standings row 2")
    bad = copy.deepcopy(good_bundle)
    bad["standings"].pop()
    fails(bad, "standings have 3 rows")


def test_record_from_another_tournament_in_a_bundle(good_bundle) -> None:
    bad = copy.deepcopy(good_bundle)
    bad["records"][0]["tournament"]["id"] = 8
    fails(bad, "differs from the bundle's")


def test_unknown_fields_are_ignored(good_bundle) -> None:
    doc = copy.deepcopy(good_bundle)
    doc["extra"] = {"anything": 1}
    doc["records"][0]["result"]["note"] = "x"
    assert verify_document(doc).ok


def test_not_a_record() -> None:
    with pytest.raises(Unreadable):
        verify_document({"format": "something/else"})
    with pytest.raises(Unreadable):
        verify_document([1, 2])
    with pytest.raises(Unreadable, match="record is malformed"):
        verify_document({"format": "samedeal-record/1", "tournament": {}})


def test_wrong_shapes_and_unreadable_times_cannot_be_read(good_bundle) -> None:
    """RECORD.md: wrong shapes and absurd sizes are neither ok nor a difference."""
    timed_out = next(r for r in good_bundle["records"] if r["result"]["status"] == "timed_out")
    for change in [
        lambda r: r["actions"][0].update(seq="1"),
        lambda r: r["actions"][0].update(at_ms=1.0),
        lambda r: r["actions"][0].update(seq=True),
        lambda r: r.update(started_at="yesterday"),
        lambda r: r["tournament"].update(closed_at="never"),
        lambda r: r["tournament"].update(time_limit_s=10**20),
        lambda r: r.update(started_at="9999-12-31T23:59:59Z"),
    ]:
        rec = copy.deepcopy(timed_out)
        change(rec)
        with pytest.raises(Unreadable):
            verify_document(rec)


def test_cli_exit_codes(tmp_path: Path, good_bundle, capsys) -> None:
    good = tmp_path / "good.json"
    good.write_text(json.dumps(good_bundle))
    assert cli_main(["verify", str(good)]) == 0
    out = capsys.readouterr().out
    assert "verified" in out and "ok   tournament 7" in out
    bad_doc = copy.deepcopy(good_bundle)
    bad_doc["records"][2]["result"]["score"] = -1
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(bad_doc))
    assert cli_main(["verify", str(bad)]) == 1
    assert "FAIL record of 'carol'" in capsys.readouterr().out
    junk = tmp_path / "junk.json"
    junk.write_text("{not json")
    assert cli_main(["verify", str(junk)]) == 2
    assert cli_main(["verify", str(tmp_path / "missing.json")]) == 2


def test_cli_as_a_module_works_offline(tmp_path: Path, good_bundle) -> None:
    import subprocess
    import sys

    f = tmp_path / "b.json"
    f.write_text(json.dumps(good_bundle))
    done = subprocess.run(
        [sys.executable, "-m", "client_cli", "verify", str(f)],
        capture_output=True,
        text=True,
        env={"PATH": "", "HOME": str(tmp_path)},
    )
    assert done.returncode == 0, done.stdout + done.stderr


# -- receipts (samedeal-log/1) ------------------------------------------------------
def test_records_and_bundles_carry_their_chains(good_bundle) -> None:
    for rec in good_bundle["records"]:
        assert rec["log_hash"] == receipts.log_hash(
            rec["tournament"]["commitment"],
            rec["player"]["id"],
            ((a["seq"], a["at_ms"], a["action"]) for a in rec["actions"]),
        )
    pairs = [(r["player"]["id"], r["log_hash"]) for r in good_bundle["records"]]
    assert good_bundle["log_root"] == receipts.log_root(pairs)
    report = verify_document(good_bundle)
    assert report.ok and report.notes == []
    assert "bundle: log_root is over the 4 records' chains" in report.checked
    assert all(line.endswith("log_hash is their chain") for line in report.checked[1:5])
    report = verify_document(good_bundle["records"][0])
    assert report.ok and report.notes == []


def test_a_retimed_action_only_the_chain_sees(good_bundle) -> None:
    rec = copy.deepcopy(good_bundle["records"][0])
    assert len(rec["actions"]) > 6  # a middle action: the result's time_ms stays
    rec["actions"][5]["at_ms"] += 1
    fails(rec, "'alice' (player 1): the log hash differs: its actions give ")
    assert f"the record claims {rec['log_hash']}" in (verify_document(rec).error or "")
    del rec["log_hash"]  # without a claim, nothing catches it: the reason receipts exist
    assert verify_document(rec).ok


def test_a_wrong_log_hash_or_log_root(good_bundle) -> None:
    bad = copy.deepcopy(good_bundle)
    bad["records"][2]["log_hash"] = "00" * 32
    fails(bad, "record of 'carol' (player 3): the log hash differs")
    bad = copy.deepcopy(good_bundle)
    bad["log_root"] = "00" * 32
    fails(bad, f"bundle: the log root differs: its records give {good_bundle['log_root']}")
    bad = copy.deepcopy(good_bundle)
    bad["log_root"] = bad["log_root"].upper()
    assert verify_document(bad).ok


def test_the_root_is_over_the_actions_not_the_claims(good_bundle) -> None:
    doc = copy.deepcopy(good_bundle)
    for rec in doc["records"]:
        del rec["log_hash"]
    report = verify_document(doc)
    assert report.ok and report.notes == ["4 of 4 records carry no receipts: " + OLD]
    doc["records"][1]["actions"][3]["at_ms"] += 1  # bob resigned: not the last action
    fails(doc, "bundle: the log root differs")


def test_records_and_bundles_from_before_receipts_still_verify(good_bundle) -> None:
    old = copy.deepcopy(good_bundle)
    del old["log_root"]
    for rec in old["records"]:
        del rec["log_hash"]
    report = verify_document(old)
    assert report.ok, report.error
    assert report.notes == [
        "4 of 4 records carry no receipts: " + OLD,
        "the bundle carries no receipts: no log_root (written before samedeal-log/1)",
    ]
    report = verify_document(old["records"][1])
    assert report.ok
    assert report.notes == ["record of 'bob' (player 2) carries no receipts: " + OLD]


def test_a_player_id_twice_in_a_bundle(good_bundle) -> None:
    bad = copy.deepcopy(good_bundle)
    bad["records"][1]["player"]["id"] = 1
    fails(bad, "record of 'bob' (player 1): the player id appears twice")


OLD = "no log_hash (written before samedeal-log/1)"
