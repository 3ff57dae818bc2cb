"""Bundles read a record at a time (RECORD.md v1.3, "Size"): the same verdicts as a
bundle read whole, in memory that does not grow with the file."""

from __future__ import annotations

import copy
import io
import json
import random
from pathlib import Path

import pytest

from client_cli.verify import run
from server.audit import receipts
from server.audit.untrusted import ReadLimits, Unreadable
from server.audit.verify import NotABundle, verify_bundle_file, verify_document
from tests.support import factories

SEED = bytes.fromhex("e4c537b6139465e60d1e3dc91d26a884e7b04b4d57558cedeb4b13dff5d68d97")
STREAM_ALL = ReadLimits(stream_from=0)  # every bundle streamed, however small


@pytest.fixture
def good_bundle() -> dict:
    t = factories.tournament(SEED)
    records = [
        factories.record(t, pid, name, factories.play_gaps(SEED, pid, n, random.Random(pid), res))
        for pid, name, n, res in [
            (1, "alice", 300, False),
            (2, "bob", 30, True),
            (3, "eve", 0, True),
        ]
    ]
    return factories.bundle(t, records)


def write(tmp_path: Path, doc: object, name: str = "b.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps(doc), encoding="utf-8")
    return str(path)


def test_a_streamed_bundle_gets_the_same_report_as_one_read_whole(
    good_bundle: dict, tmp_path: Path
) -> None:
    whole = verify_document(copy.deepcopy(good_bundle))
    streamed, _ = verify_bundle_file(write(tmp_path, good_bundle), STREAM_ALL)
    assert whole.ok and streamed.ok
    assert streamed.checked == whole.checked and streamed.notes == whole.notes


def test_records_before_the_tournament_are_read_again(good_bundle: dict, tmp_path: Path) -> None:
    reordered = {"records": good_bundle["records"], **good_bundle}
    assert next(iter(reordered)) == "records"
    report, _ = verify_bundle_file(write(tmp_path, reordered), STREAM_ALL)
    assert report.ok and report.checked == verify_document(good_bundle).checked


@pytest.mark.parametrize(
    ("change", "fragment"),
    [
        (
            lambda b: b["records"][1]["actions"][2].update(
                action={"kind": "move", "card": "KS", "to": [0, 0]}
            ),
            "seq 3: illegal action",
        ),
        (lambda b: b["standings"].reverse(), "standings row 1"),
        (lambda b: b.update(log_root="00" * 32), "the log root differs"),
        (lambda b: b["records"][2]["result"].update(progress=40), "result progress"),
    ],
)
def test_a_difference_is_found_as_when_read_whole(
    good_bundle: dict, tmp_path: Path, change, fragment: str
) -> None:
    bad = copy.deepcopy(good_bundle)
    change(bad)
    report, _ = verify_bundle_file(write(tmp_path, bad), STREAM_ALL)
    assert report.error is not None and fragment in report.error
    assert report.error == verify_document(copy.deepcopy(bad)).error


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ('{"format": "samedeal-bundle/1", "records": [', "ends too soon"),
        ('{"format": "samedeal-bundle/1"} {}', "extra data"),
        ('{"format": "samedeal-bundle/1", "format": "x"}', "twice"),
        ('{"format": "samedeal-bundle/1", "records": [NaN]}', "NaN"),
        ('{"format": "samedeal-bundle/1", "records": [1' + "0" * 60 + "]}", "characters"),
        ('{"format": "samedeal-bundle/1", "records": 7}', "malformed"),
        ('{"format": "samedeal-bundle/1", "tournament": {}}', "malformed"),
    ],
)
def test_hostile_streamed_files_are_unreadable(tmp_path: Path, text: str, fragment: str) -> None:
    path = tmp_path / "h.json"
    path.write_text(text)
    with pytest.raises(Unreadable) as info:
        verify_bundle_file(str(path), STREAM_ALL)
    assert fragment in str(info.value)


def test_a_record_or_a_file_that_is_no_object_is_not_streamed(
    good_bundle: dict, tmp_path: Path
) -> None:
    for doc in (good_bundle["records"][0], [1, 2], "x"):
        with pytest.raises(NotABundle):
            verify_bundle_file(write(tmp_path, doc), STREAM_ALL)


def test_the_command_streams_large_bundles_with_a_receipt(
    good_bundle: dict, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import client_cli.verify as cli_verify

    monkeypatch.setattr(cli_verify, "LIMITS", STREAM_ALL)
    path = write(tmp_path, good_bundle)
    bob = good_bundle["records"][1]
    seq = len(bob["actions"])
    out = io.StringIO()
    status = run(path, out, (seq, bob["log_hash"]), "bob", limits=STREAM_ALL)
    assert status == 0, out.getvalue()
    assert "receipt: the log 'bob' acknowledged" in out.getvalue()
    wrong = receipts.genesis("00" * 32, 2).hex()
    out = io.StringIO()
    assert run(path, out, (seq, wrong), "bob", limits=STREAM_ALL) == 1
