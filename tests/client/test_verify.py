"""client_cli/verify.py: `samedeal verify FILE --receipt SEQ:HASH [--player NAME]`, a
player's acknowledgement against a published record or bundle (the verifier itself:
tests/audit/test_verify.py, hostile files: tests/audit/test_hostile.py)."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

import pytest

from client_cli.__main__ import main as cli_main
from server.audit import receipts
from server.audit.records import record_of
from tests.support import factories

SEED = bytes.fromhex("e4c537b6139465e60d1e3dc91d26a884e7b04b4d57558cedeb4b13dff5d68d97")


@pytest.fixture(scope="module")
def bundle() -> dict[str, Any]:
    t = factories.tournament(SEED)
    records = [
        factories.record(t, pid, name, factories.play_gaps(SEED, pid, n, random.Random(pid)))
        for pid, name, n in [(1, "alice", 60), (2, "bob", 30)]
    ]
    return factories.bundle(t, records)


def ack(record: dict[str, Any], seq: int) -> str:
    """The receipt the server gave for action `seq`: its log hash then."""
    head = receipts.log_hash(
        record["tournament"]["commitment"],
        record["player"]["id"],
        ((a["seq"], a["at_ms"], a["action"]) for a in record["actions"][:seq]),
    )
    return f"{seq}:{head}"


def verify(tmp_path: Path, doc: dict[str, Any], *args: str) -> int:
    f = tmp_path / "doc.json"
    f.write_text(json.dumps(doc))
    return cli_main(["verify", str(f), *args])


def test_a_record_holds_every_acknowledged_prefix(tmp_path, bundle, capsys) -> None:
    alice = bundle["records"][0]
    n = len(alice["actions"])
    for seq in (0, 1, 17, n):
        assert verify(tmp_path, alice, "--receipt", ack(alice, seq)) == 0
        out = capsys.readouterr().out
        line = (
            f"ok   receipt: the log 'alice' acknowledged at seq {seq} is in the record, unchanged"
        )
        assert line in out.splitlines() and out.rstrip().endswith(
            "verified: " + str(tmp_path / "doc.json")
        )
    assert verify(tmp_path, alice, "--receipt", ack(alice, 5).upper()) == 0


def test_a_history_rewritten_consistently_fails_only_the_receipt(tmp_path, bundle, capsys) -> None:
    """The server changes an acknowledged action's time and republishes a record whose
    log_hash fits: the record verifies on its own, the player's receipt does not."""
    alice = bundle["records"][0]
    receipt = ack(alice, 20)
    actions = copy.deepcopy(alice["actions"])
    actions[9]["at_ms"] += 1
    forged = record_of(
        alice["tournament"], alice["player"], alice["started_at"], actions, alice["result"]
    )
    assert verify(tmp_path, forged) == 0
    capsys.readouterr()
    assert verify(tmp_path, forged, "--receipt", receipt) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1].startswith(
        "FAIL receipt: the log 'alice' acknowledged at seq 20 is not there unchanged: "
        "the record's log after 20 actions hashes to "
    )
    assert lines[-1].endswith("the acknowledged log was changed")
    assert not any(line.startswith("verified") for line in lines)
    assert verify(tmp_path, forged, "--receipt", ack(alice, 9)) == 0  # before the change


def test_a_record_shorter_than_the_receipt(tmp_path, bundle, capsys) -> None:
    alice = bundle["records"][0]
    n = len(alice["actions"])
    cut = record_of(
        alice["tournament"],
        alice["player"],
        alice["started_at"],
        alice["actions"][:10],
        alice["result"],
    )
    assert verify(tmp_path, cut, "--receipt", ack(alice, 11)) == 1
    out = capsys.readouterr().out
    assert "the record lacks acknowledged actions: it has 10, the receipt acknowledges 11" in out
    assert n > 11


def test_a_receipt_on_a_bundle_names_the_player(tmp_path, bundle, capsys) -> None:
    bob = bundle["records"][1]
    assert verify(tmp_path, bundle, "--receipt", ack(bob, 7)) == 2
    assert "a receipt on a bundle needs --player NAME" in capsys.readouterr().out
    assert verify(tmp_path, bundle, "--receipt", ack(bob, 7), "--player", "Bob") == 0
    out = capsys.readouterr().out
    assert "ok   receipt: the log 'bob' acknowledged at seq 7 is in the bundle, unchanged" in out
    assert verify(tmp_path, bundle, "--receipt", ack(bob, 7), "--player", "alice") == 1
    assert "FAIL receipt: the log 'alice' acknowledged at seq 7" in capsys.readouterr().out
    assert verify(tmp_path, bundle, "--receipt", ack(bob, 7), "--player", "carol") == 1
    assert "the bundle has no record of 'carol'" in capsys.readouterr().out


def test_player_on_a_record(tmp_path, bundle, capsys) -> None:
    bob = bundle["records"][1]
    assert verify(tmp_path, bob, "--receipt", ack(bob, 3), "--player", "bob") == 0
    assert verify(tmp_path, bob, "--receipt", ack(bob, 3), "--player", "alice") == 1
    assert "the record is 'bob''s, not 'alice''s" in capsys.readouterr().out
    assert verify(tmp_path, bob, "--player", "bob") == 2
    assert "--player goes with --receipt" in capsys.readouterr().out


def test_a_record_from_before_receipts_still_answers_a_receipt(tmp_path, bundle, capsys) -> None:
    old = copy.deepcopy(bundle["records"][1])
    del old["log_hash"]
    assert verify(tmp_path, old, "--receipt", ack(old, 4)) == 0
    out = capsys.readouterr().out
    assert "note record of 'bob' (player 2) carries no receipts" in out
    assert "is in the record, unchanged" in out


def test_a_receipt_against_a_record_that_fails_anyway(tmp_path, bundle, capsys) -> None:
    bad = copy.deepcopy(bundle["records"][1])
    bad["result"]["score"] += 1
    assert verify(tmp_path, bad, "--receipt", ack(bad, 4)) == 1
    out = capsys.readouterr().out
    assert "FAIL record of 'bob' (player 2): result score" in out
    assert "ok   receipt: the log 'bob' acknowledged at seq 4 is in the record, unchanged" in out


@pytest.mark.parametrize(
    "bad", ["7", "x:" + "a" * 64, "-1:" + "a" * 64, "3:" + "a" * 63, "3:" + "g" * 64]
)
def test_a_receipt_that_is_not_seq_colon_hash(tmp_path, bundle, capsys, bad: str) -> None:
    with pytest.raises(SystemExit) as exc:
        verify(tmp_path, bundle["records"][0], f"--receipt={bad}")
    assert exc.value.code == 2
    assert "is not SEQ:HASH" in capsys.readouterr().err


def test_the_help_says_how(capsys) -> None:
    with pytest.raises(SystemExit):
        cli_main(["verify", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "--receipt SEQ:HASH" in out and "--player NAME" in out
    assert "For a bundle, name the player with --player" in out
    assert "Exit 0 when all holds, 1 at the first difference, 2 when" in out
