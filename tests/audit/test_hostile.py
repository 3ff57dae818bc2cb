"""`samedeal verify` on files from strangers (docs/RECORDS.md, "Hostile files").

Every file gets one verdict and an exit status: 0 ok, 1 a difference, 2 cannot tell
(not there, not a record or bundle, past the limits), 3 a bug in the verifier; never
a traceback. Every file here is made in tmp_path. The limits are tested at full size
where that is fast, otherwise lowered through `ReadLimits`; SAMEDEAL_LONG=1 adds the
full-size runs (a record of a million valid actions, a 64 MiB bundle, the worst
hostile files at the size cap) and prints their figures.
"""

from __future__ import annotations

import copy
import io
import json
import os
import random
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from client_cli import verify as cli
from server.audit.records import record_of
from server.audit.untrusted import LIMITS, ReadLimits, Unreadable
from server.audit.verify import verify_document
from tests.support import factories

SEED = bytes.fromhex("e4c537b6139465e60d1e3dc91d26a884e7b04b4d57558cedeb4b13dff5d68d97")
LONG = os.environ.get("SAMEDEAL_LONG") == "1"
STATUSES = {cli.EXIT_OK, cli.EXIT_MISMATCH, cli.EXIT_UNREADABLE}


def check(
    tmp_path: Path, content: str | bytes | dict[str, Any], limits: ReadLimits = LIMITS, *args: Any
) -> tuple[int, list[str]]:
    """Run the verifier's command on `content` written to a file: (status, lines)."""
    f = tmp_path / "doc.json"
    if isinstance(content, dict):
        content = json.dumps(content)
    if isinstance(content, str):
        content = content.encode()
    f.write_bytes(content)
    return run(str(f), limits, *args)


def run(path: str, limits: ReadLimits = LIMITS, *args: Any) -> tuple[int, list[str]]:
    out = io.StringIO()
    status = cli.run(path, out, *args, limits=limits)
    lines = out.getvalue().splitlines()
    for line in lines:
        assert line.isprintable() and len(line) <= 1001, line  # one printable line each
    return status, lines


def unreadable(tmp_path: Path, content: Any, fragment: str, limits: ReadLimits = LIMITS) -> None:
    status, lines = check(tmp_path, content, limits)
    assert status == cli.EXIT_UNREADABLE, lines
    assert len(lines) == 1 and lines[0].startswith("unreadable: "), lines
    assert fragment in lines[0], lines


@pytest.fixture(scope="module")
def record() -> dict[str, Any]:
    t = factories.tournament(SEED)
    return factories.record(t, 2, "bob", factories.play_gaps(SEED, 2, 12, random.Random(2), True))


@pytest.fixture(scope="module")
def bundle() -> dict[str, Any]:
    t = factories.tournament(SEED)
    records = [
        factories.record(t, pid, name, factories.play_gaps(SEED, pid, 8, random.Random(pid)))
        for pid, name in [(1, "alice"), (2, "bob")]
    ]
    return factories.bundle(t, records)


# -- the files the issue names ----------------------------------------------------------
def test_deep_nesting_is_unreadable_not_a_recursion_error(tmp_path) -> None:
    unreadable(tmp_path, "[" * 100_000 + "]" * 100_000, "nested deeper than 32 levels")
    unreadable(tmp_path, "[" * 100_000, "nested deeper than 32 levels")  # and not even JSON
    unreadable(tmp_path, '{"a":' * 50_000 + "1" + "}" * 50_000, "nested deeper than 32")


def test_nesting_counts_only_brackets_outside_strings(tmp_path, record) -> None:
    doc = copy.deepcopy(record)
    doc["note"] = "[{" * 1000 + '\\" [ \\\\'  # brackets, escapes and quotes inside a string
    assert check(tmp_path, doc)[0] == cli.EXIT_OK
    deepest = 32 - 1  # the record itself is the first level
    doc["note"] = json.loads("[" * deepest + "]" * deepest)
    assert check(tmp_path, doc)[0] == cli.EXIT_OK
    doc["note"] = [doc["note"]]
    unreadable(tmp_path, doc, "nested deeper than 32 levels")


def test_huge_numbers_are_unreadable_not_a_value_error(tmp_path, record) -> None:
    text = json.dumps(record)
    for number in ["9" * 5000, "-" + "9" * 5000, "1" * 41, "1." + "0" * 40, "1e" + "0" * 40]:
        unreadable(tmp_path, text[:-1] + f', "x": {number}}}', "a number of ")
    unreadable(tmp_path, text.replace('"id": 2', '"id": ' + "2" * 5000), "a number of 5,000")
    for number in ["1e400", "-1e400"]:
        unreadable(tmp_path, text[:-1] + f', "x": {number}}}', "beyond a double's range")
    for constant in ["NaN", "Infinity", "-Infinity"]:
        unreadable(tmp_path, text[:-1] + f', "x": {constant}}}', "is not a JSON number")
    ok = text[:-1] + ', "x": ' + "1" * 40 + ', "y": -1.5e300}'  # up to 40 characters
    assert check(tmp_path, ok)[0] == cli.EXIT_OK


def test_a_big_but_readable_number_in_a_field_is_a_difference_or_unreadable(
    tmp_path, record
) -> None:
    doc = copy.deepcopy(record)
    doc["actions"][3]["seq"] = 10**39
    status, lines = check(tmp_path, doc)
    assert status == cli.EXIT_MISMATCH and "expected seq 4, found seq 1000" in lines[-1]
    t = factories.tournament(SEED)
    timed_out = factories.record(t, 3, "carol", factories.play_gaps(SEED, 3, 5, random.Random(3)))
    assert timed_out["result"]["status"] == "timed_out"
    timed_out["tournament"]["time_limit_s"] = 10**39
    unreadable(tmp_path, timed_out, "its times cannot be read")


def test_duplicate_keys_are_unreadable(tmp_path, record) -> None:
    """RFC 8259 leaves a repeated key's meaning to the reader; a verdict may not
    depend on it, so the file is refused whichever copy would have won."""
    text = json.dumps(record)
    unreadable(tmp_path, text[:-1] + ', "format": "samedeal-record/1"}', "the key 'format' twice")
    again = text.replace('"score": ', '"score": 99, "score": ', 1)
    unreadable(tmp_path, again, "an object has the key 'score' twice")
    nested = text.replace('"kind": "move"', '"kind": "move", "kind": "move"', 1)
    unreadable(tmp_path, nested, "the key 'kind' twice")


def test_non_utf8_and_byte_order_marks(tmp_path, record) -> None:
    text = json.dumps(record).encode()
    for bad in [b"\xff", b"\xc0\xaf", b"\xed\xa0\x80", b"\x80"]:
        unreadable(tmp_path, text[:-1] + b', "x": "' + bad + b'"}', "not UTF-8 text: byte ")
    unreadable(tmp_path, text.decode().encode("utf-16"), "not UTF-8")
    assert check(tmp_path, b"\xef\xbb\xbf" + text)[0] == cli.EXIT_OK  # one BOM is skipped
    unreadable(tmp_path, b"\xef\xbb\xbf" * 2 + text, "not JSON")


def test_strange_but_valid_text_prints_one_escaped_line(tmp_path, record) -> None:
    """A name may hold anything JSON can: control characters, a lone surrogate, a
    terminal escape, a fake verdict line. Each line printed stays one printable line."""
    doc = copy.deepcopy(record)
    doc["player"]["name"] = "bob\nverified: everything\x1b[2J\ud800" + "é" * 5000
    status, lines = check(tmp_path, doc)
    assert status == cli.EXIT_OK, lines
    assert lines[-1].startswith("verified: ") and len(lines) == 3
    assert "record of 'bob\\nverified: everything\\x1b[2J" in lines[1]
    assert "...éé" in lines[1] and len(lines[1]) < 300
    doc["result"] = {**record["result"], "score": 0}
    status, lines = check(tmp_path, doc)
    assert status == cli.EXIT_MISMATCH and lines[-1].startswith("FAIL record of 'bob\\n")


def test_not_there_a_directory_empty_or_blank(tmp_path) -> None:
    status, lines = run(str(tmp_path / "absent.json"))
    assert status == cli.EXIT_UNREADABLE
    assert lines == [f"cannot open: {tmp_path / 'absent.json'}: No such file or directory"]
    status, lines = run(str(tmp_path))
    assert status == cli.EXIT_UNREADABLE and lines == [f"cannot open: {tmp_path}: Is a directory"]
    unreadable(tmp_path, b"", "the file is empty")
    unreadable(tmp_path, b" \n\t\r\n", "the file is empty")
    unreadable(tmp_path, b"\x00", "not JSON")
    unreadable(tmp_path, b"{not json", "not JSON: Expecting property name")


def test_a_huge_file_is_refused_before_it_is_read(tmp_path) -> None:
    f = tmp_path / "huge.json"
    with f.open("wb") as out:
        out.truncate(64 * 2**30)  # sparse: 64 GiB of nothing, in no time
    started = time.perf_counter()
    status, lines = run(str(f))
    assert status == cli.EXIT_UNREADABLE
    assert lines == [f"unreadable: {f}: too large: 68,719,476,736 bytes, the limit is 67,108,864"]
    assert time.perf_counter() - started < 1


def test_a_stream_past_the_cap_is_read_only_to_the_cap(tmp_path) -> None:
    """A file whose size says nothing (a device, a pipe) is read to the cap and no more."""
    status, lines = run("/dev/zero", ReadLimits(max_bytes=2**20))
    assert status == cli.EXIT_UNREADABLE
    assert lines == ["unreadable: /dev/zero: too large: 1,048,577 bytes, the limit is 1,048,576"]


def test_the_size_cap(tmp_path, record) -> None:
    text = json.dumps(record)
    assert check(tmp_path, text, ReadLimits(max_bytes=len(text)))[0] == cli.EXIT_OK
    unreadable(tmp_path, text, "too large: ", ReadLimits(max_bytes=len(text) - 1))


def test_too_many_arrays_and_objects(tmp_path, record) -> None:
    text = json.dumps(record)
    n = text.count("{") + text.count("[")
    assert check(tmp_path, text, ReadLimits(max_containers=n))[0] == cli.EXIT_OK
    unreadable(
        tmp_path, text, f"too many arrays and objects: {n}", ReadLimits(max_containers=n - 1)
    )
    unreadable(tmp_path, "[" + ",".join(["{}"] * 4_000_001) + "]", "4,000,002, the limit is")


# -- counts: a record of millions of actions, a bundle of a million records --------------
def test_a_million_records_in_a_bundle(tmp_path) -> None:
    text = '{"format": "samedeal-bundle/1", "records": [' + ",".join(["{}"] * 10**6) + "]}"
    unreadable(tmp_path, text, "bundle has 1,000,000 records, the limit is 100,000")


def test_millions_of_actions_in_a_record(tmp_path) -> None:
    text = '{"format": "samedeal-record/1", "actions": [' + ",".join(["{}"] * 2 * 10**6) + "]}"
    unreadable(tmp_path, text, "2,000,000 actions, the limit is 1,000,000")


def test_the_record_and_action_counts_at_their_limits(tmp_path, record, bundle) -> None:
    n = len(record["actions"])
    assert check(tmp_path, record, ReadLimits(max_actions=n))[0] == cli.EXIT_OK
    unreadable(
        tmp_path, record, f"{n} actions, the limit is {n - 1}", ReadLimits(max_actions=n - 1)
    )
    assert check(tmp_path, bundle, ReadLimits(max_records=2))[0] == cli.EXIT_OK
    unreadable(tmp_path, bundle, "bundle has 2 records, the limit is 1", ReadLimits(max_records=1))
    inner = copy.deepcopy(bundle)
    inner["records"][1]["actions"] *= 3
    unreadable(
        tmp_path, inner, "bundle is malformed: records.1: 24 actions", ReadLimits(max_actions=20)
    )
    solved = copy.deepcopy(record)
    solved["tournament"]["solution"] = [{"kind": "resign"}] * (n + 1)
    unreadable(tmp_path, solved, f"a solution of {n + 1} steps", ReadLimits(max_actions=n))


# -- wrong types, nulls, missing and extra fields, anywhere ------------------------------
def paths(value: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every place in a document (only the first two actions of a list of them)."""
    if isinstance(value, dict):
        for key, inner in value.items():
            yield (*prefix, key)
            yield from paths(inner, (*prefix, key))
    elif isinstance(value, list):
        for i, inner in enumerate(value[:2]):
            yield (*prefix, i)
            yield from paths(inner, (*prefix, i))


def replaced(doc: Any, path: tuple[Any, ...], value: Any) -> Any:
    doc = copy.deepcopy(doc)
    inner = doc
    for step in path[:-1]:
        inner = inner[step]
    if value is DELETE:
        del inner[path[-1]]
    else:
        inner[path[-1]] = value
    return doc


DELETE = object()
ODD_VALUES = [None, True, 0, -1, 1.5, 2**63, "", "x", [], [None], {}, {"x": None}, DELETE]


@pytest.mark.parametrize("what", ["record", "bundle"])
def test_any_field_of_any_type_or_missing_gets_a_verdict(tmp_path, record, bundle, what) -> None:
    """Every field, at every level, replaced by a value of each JSON type or removed:
    a verdict every time (mostly unreadable; a difference where the value is of the right
    type but wrong; ok where the field is optional), one line for unreadable."""
    doc = record if what == "record" else bundle
    seen: dict[int, int] = {}
    for path in paths(doc):
        for value in ODD_VALUES:
            status, lines = check(tmp_path, replaced(doc, path, value))
            assert status in STATUSES, (path, value, lines)
            if status == cli.EXIT_UNREADABLE:
                assert len(lines) == 1 and lines[0].startswith("unreadable: "), (path, lines)
            seen[status] = seen.get(status, 0) + 1
    assert seen[cli.EXIT_UNREADABLE] > seen.get(cli.EXIT_MISMATCH, 0) > 0


@pytest.mark.parametrize(
    ("path", "value"),
    [
        (("player", "id"), "2"),
        (("player", "id"), 2.0),
        (("player", "id"), True),
        (("result", "progress"), "1"),
        (("tournament", "id"), 7.0),
        (("tournament", "deal_attempt"), False),
        (("tournament", "time_limit_s"), "900"),
        (("started_at",), 0),
        (("tournament", "options"), None),
    ],
)
def test_a_value_of_another_json_type_is_unreadable(tmp_path, record, path, value) -> None:
    """JSON types are exact: no reader may take "2", 2.0 or true for the player id 2 (the
    verifier took them, and hashed the log under 2 while a receipt check of the same
    file saw no player id)."""
    unreadable(tmp_path, replaced(record, path, value), "record is malformed: ")


def test_unknown_fields_anywhere_are_ignored_but_not_in_an_action(tmp_path, bundle) -> None:
    doc = copy.deepcopy(bundle)
    doc["x"] = {"deep": [[1]]}
    doc["tournament"]["x"] = None
    doc["records"][0]["player"]["x"] = []
    doc["records"][0]["actions"][0]["x"] = 1
    doc["standings"][0]["x"] = "y"
    assert check(tmp_path, doc)[0] == cli.EXIT_OK
    doc["records"][0]["actions"][0]["action"]["x"] = 1  # an action is the game's: exact
    status, lines = check(tmp_path, doc)
    assert status == cli.EXIT_MISMATCH and "illegal action" in lines[-1]


def test_a_malformed_record_anywhere_in_a_bundle_beats_any_difference(tmp_path, bundle) -> None:
    doc = copy.deepcopy(bundle)
    doc["records"][0]["result"]["score"] += 1  # a difference in the first record
    doc["records"][1]["actions"][0]["seq"] = "1"  # a wrong shape in the last
    unreadable(tmp_path, doc, "bundle is malformed: records.1.actions.0.seq: ")


def test_every_action_is_checked_before_any_is_replayed(tmp_path, record) -> None:
    """Actions are checked a chunk (4,096) at a time: the place of a bad one past the
    first chunk is still named, and it beats the difference at the first action."""
    doc = copy.deepcopy(record)
    doc["actions"] = [dict(doc["actions"][0], seq=i) for i in range(1, 9001)]
    doc["actions"][0]["seq"] = 2  # a difference first
    doc["actions"][8500]["at_ms"] = 1.5
    unreadable(tmp_path, doc, "record is malformed: actions.8500.at_ms: Input should be a valid")


def test_the_receipt_check_reads_only_what_the_verifier_read(tmp_path, record) -> None:
    receipt = (1, record["log_hash"])
    status, lines = check(tmp_path, replaced(record, ("player", "id"), 2.0), LIMITS, receipt)
    assert status == cli.EXIT_UNREADABLE and len(lines) == 1


# -- the command's own failures -----------------------------------------------------------
def test_a_bug_in_the_verifier_is_one_line_and_status_3(tmp_path, record, monkeypatch) -> None:
    def boom(*_: Any) -> None:
        raise RuntimeError("boom\nsecond line")

    monkeypatch.setattr(cli, "verify_document", boom)
    status, lines = check(tmp_path, record)
    assert status == cli.EXIT_INTERNAL == 3
    assert lines == [
        "error: the verifier failed (RuntimeError: boom\\nsecond line); "
        "this is a bug in samedeal verify, not a verdict on the file"
    ]

    def interrupted(*_: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "verify_document", interrupted)
    assert check(tmp_path, record) == (130, ["interrupted"])


def test_a_closed_pipe_keeps_the_status_and_prints_no_traceback(tmp_path, bundle) -> None:
    f = tmp_path / "b.json"
    f.write_text(json.dumps(bundle))
    done = subprocess.run(
        f"{sys.executable} -m client_cli verify {f} | head -c 1 >/dev/null; "
        'echo "status ${PIPESTATUS[0]}"',
        shell=True,
        executable="/bin/bash",
        capture_output=True,
        text=True,
        cwd=Path(__file__).parents[2],
    )
    assert done.stdout.strip() == "status 0" and done.stderr == "", done


def test_a_log_is_not_a_record() -> None:
    with pytest.raises(Unreadable, match="format 'samedeal-log/1'"):
        verify_document({"format": "samedeal-log/1"})


# -- memory and time ------------------------------------------------------------------------
def big_bundle(records: int) -> str:
    """A valid bundle of `records` records of the same 38 moves (no redeal: a deal the
    same for every player id), as compact text."""
    t = factories.tournament(SEED)
    moves = factories.play_gaps(SEED, 1, 300, random.Random(1))
    moves = moves[: next(i for i, a in enumerate(moves) if a["kind"] != "move")]
    one = factories.record(t, 1, "p1", moves)
    recs = []
    for pid in range(1, records + 1):
        r = record_of(t, {"id": pid, "name": f"p{pid}"}, one["started_at"], one["actions"], {})
        r["result"] = one["result"]
        recs.append(r)
    return json.dumps(factories.bundle(t, recs), separators=(",", ":"))


# The peak is the process's own VmHWM: its ru_maxrss would count the pytest process it was
# forked from, as Linux carries the high-water mark across exec.
PEAK = """
import re, sys, time
from client_cli.__main__ import main
started = time.perf_counter()
status = main(["verify", sys.argv[1]])
seconds = time.perf_counter() - started
with open("/proc/self/status") as f:
    peak = int(re.search(r"VmHWM:\\s*(\\d+) kB", f.read()).group(1)) * 1024
print(f"figures: {status} {seconds:.2f} {peak}", file=sys.stderr)
"""


def measure(path: Path) -> tuple[int, float, int]:
    """(status, seconds, peak resident bytes) of `samedeal verify` in a process of its own."""
    done = subprocess.run(
        [sys.executable, "-c", PEAK, str(path)],
        capture_output=True,
        text=True,
        cwd=Path(__file__).parents[2],
    )
    status, seconds, peak = done.stderr.strip().splitlines()[-1].split()[1:]
    return int(status), float(seconds), int(peak)


def mib(n: int) -> str:
    return f"{n / 2**20:.1f} MiB"


BASE = 60 * 2**20  # the interpreter, pydantic and the games, before any file


def test_peak_memory_of_a_large_valid_bundle(tmp_path) -> None:
    """About 10 times the file, plus the interpreter: the tree of the parsed file and one
    record's fields at a time (a model for every record and action took 17 times)."""
    f = tmp_path / "big.json"
    f.write_text(big_bundle(1200 if not LONG else 18000))  # 18,000: 60 MiB, under the cap
    status, seconds, peak = measure(f)
    size = f.stat().st_size
    print(f"\nfigures: valid bundle {mib(size)}: {seconds:.1f} s, peak {mib(peak)}")
    assert status == 0
    assert peak < BASE + 12 * size


@pytest.mark.parametrize(
    ("name", "units"),
    [
        ("strings", [b'"ab"']),
        ("ints", [b"1000"]),
        ("floats", [b"1.5"]),
        ("objects", [b'{"a":0}']),
        ("objects then strings", [b'{"a":0}', b'"ab"']),
    ],
)
def test_peak_memory_of_hostile_files(tmp_path, name, units) -> None:
    """The worst files have the most values per byte: bounded by the size cap (and the
    container cap, for objects), about 25 times the file at most (SAMEDEAL_LONG=1: at
    the 64 MiB cap itself)."""
    size = LIMITS.max_bytes if LONG else 4 * 2**20
    values = [b'{"format":"samedeal-bundle/1","x":[']
    room = size - 100
    for i, unit in enumerate(units):  # objects up to the container cap, then the next
        n = room // (len(units) - i) // (len(unit) + 1)
        if unit[:1] in (b"{", b"["):  # all the arrays and objects the cap lets through
            n = min(n, LIMITS.max_containers - 2)
        values.append(b",".join([unit] * n) + b",")
        room -= n * (len(unit) + 1)
    f = tmp_path / "hostile.json"
    f.write_bytes(b"".join(values) + b"0]}")
    status, seconds, peak = measure(f)
    print(f"\nfigures: {name} {mib(f.stat().st_size)}: {seconds:.1f} s, peak {mib(peak)}")
    assert status == 2
    assert peak < BASE + 25 * size


@pytest.mark.skipif(not LONG, reason="SAMEDEAL_LONG=1: a record of a million valid actions")
def test_a_record_of_a_million_valid_actions(tmp_path) -> None:
    """The action cap at full size with legal actions: Klondike draws, unlimited passes."""
    t = factories.tournament(SEED, "klondike", {"draw": 1})
    actions = [
        {"seq": i, "at_ms": i, "action": {"kind": "draw"}} for i in range(1, LIMITS.max_actions + 1)
    ]
    rec = record_of(t, {"id": 1, "name": "p"}, factories.STARTS, actions, {})
    rec["result"] = {"status": "timed_out", "progress": 0, "resets": 0, "time_ms": 0, "score": 0}
    f = tmp_path / "long.json"
    f.write_text(json.dumps(rec, separators=(",", ":")))
    status, seconds, peak = measure(f)
    print(f"\nfigures: 10**6 actions, {mib(f.stat().st_size)}: {seconds:.1f} s, peak {mib(peak)}")
    assert status in (0, 1) and seconds < 120
    assert peak < BASE + 14 * f.stat().st_size  # no model per action
    rec["actions"].append({"seq": 10**6 + 1, "at_ms": 10**6 + 1, "action": {"kind": "draw"}})
    f.write_text(json.dumps(rec, separators=(",", ":")))
    assert measure(f)[0] == 2
