"""Fair play in bundles (RECORD.md v1.3): a bundle amended after the close verifies; one
whose standings ignore an amendment, rank a disqualified entry, or whose amendments and
records disagree, is a difference."""

from __future__ import annotations

import copy
import random
from pathlib import Path
from typing import Any

import orjson
import pytest

from server.audit.untrusted import Unreadable
from server.audit.verify import verify_bundle_file, verify_document
from server.domain.ranking import Result, standings, standings_without
from tests.support import factories
from tests.support.factories import figures
from tests.support.fairplay import amend, disqualify_before_close

SEED = bytes.fromhex("e4c537b6139465e60d1e3dc91d26a884e7b04b4d57558cedeb4b13dff5d68d97")


def _bundle() -> dict[str, Any]:
    t = factories.tournament(SEED)
    records = []
    for pid in range(1, 6):
        rnd = random.Random(pid)
        actions = factories.play_gaps(SEED, pid, [0, 5, 40, 40, 400][pid - 1], rnd)
        records.append(factories.record(t, pid, f"p{pid}", actions))
    return factories.bundle(t, records)


@pytest.fixture(scope="module")
def good() -> dict[str, Any]:
    return _bundle()


def _leader(bundle: dict[str, Any]) -> str:
    return str(bundle["standings"][0]["player"])


def test_standings_without_rank_the_others_as_if_absent() -> None:
    rs = [
        Result("a", figures("won", 52, 0, score=52, time_ms=100)),
        Result("b", figures("lost", 40, 1, score=40, time_ms=50)),
        Result("c", figures("lost", 40, 1, score=40, time_ms=50)),
        Result("d", figures("lost", 10, 2, score=10, time_ms=10)),
    ]
    rows = standings_without(rs, {"a": "solver", "c": "second account"})
    assert [(r.rank, r.player) for r in rows] == [(1, "b"), (2, "d"), (None, "a"), (None, "c")]
    assert rows[2].as_dict()["disqualified"] == "solver"
    assert [r.as_dict() for r in standings_without(rs, {})] == [r.as_dict() for r in standings(rs)]


def test_a_bundle_amended_after_the_close_verifies(good: dict[str, Any]) -> None:
    leader = _leader(good)
    doc = amend(good, leader, "a solver played the moves")
    report = verify_document(doc)
    assert report.ok, report.error
    assert doc["standings"][-1]["rank"] is None
    assert doc["standings"][-1]["disqualified"] == "a solver played the moves"
    assert doc["standings"][0]["player"] != leader and doc["standings"][0]["rank"] == 1
    assert any(line.startswith("fair play: 1 disqualified, 1 of them") for line in report.checked)


def test_a_disqualification_before_the_close_needs_no_amendment(good: dict[str, Any]) -> None:
    doc = disqualify_before_close(good, _leader(good), "shared line")
    assert verify_document(doc).ok


def tampered(good: dict[str, Any]) -> dict[str, tuple[dict[str, Any], str]]:
    """Amended bundles changed in one place, with a fragment of the difference named."""
    leader = _leader(good)
    doc = amend(good, leader, "solver")
    out: dict[str, tuple[dict[str, Any], str]] = {}

    def bad(name: str, fragment: str, change) -> None:  # type: ignore[no-untyped-def]
        b = copy.deepcopy(doc)
        change(b)
        out[name] = (b, fragment)

    bad(
        "standings ignore the amendment",
        "standings row 1",
        lambda b: b.update(standings=good["standings"]),
    )
    bad("disqualified entry ranked", "standings row", lambda b: b["standings"][-1].update(rank=6))
    bad(
        "reason dropped from the row",
        "standings row",
        lambda b: b["standings"][-1].update(disqualified=None),
    )
    bad(
        "record unmarked",
        "carries no disqualification",
        lambda b: [r.pop("disqualified", None) for r in b["records"]],
    )
    bad(
        "amendment for nobody",
        "no record of that player",
        lambda b: b["amendments"].append(
            {"player": "ghost", "reason": "x", "at": "2026-11-30T21:00:00Z"}
        ),
    )
    bad(
        "reason differs",
        "the record 'solver'",
        lambda b: b["amendments"][0].update(reason="other"),
    )
    bad(
        "amendment removed",
        "no amendment for it",
        lambda b: b.update(amendments=[]),
    )
    bad(
        "amended twice",
        "amended twice",
        lambda b: b["amendments"].append(dict(b["amendments"][0])),
    )
    return out


def test_tampered_amended_bundles_are_refused(good: dict[str, Any]) -> None:
    for name, (doc, fragment) in tampered(good).items():
        report = verify_document(doc)
        assert not report.ok, name
        assert fragment in (report.error or ""), (name, report.error)


def test_malformed_fair_play_fields_are_unreadable(good: dict[str, Any]) -> None:
    doc = amend(good, _leader(good), "solver")
    for change in (
        lambda b: b.update(amendments={"player": "x"}),
        lambda b: b["amendments"][0].pop("reason"),
        lambda b: b["records"][0].update(disqualified="yes"),
        lambda b: b["standings"][0].update(bot="no"),
        lambda b: [
            x.update(at="yesterday")
            for x in [
                *b["amendments"],
                *(r["disqualified"] for r in b["records"] if "disqualified" in r),
            ]
        ],
    ):
        bad = copy.deepcopy(doc)
        change(bad)
        with pytest.raises(Unreadable):
            verify_document(bad)


def test_a_streamed_amended_bundle_verifies_as_the_parsed_one(
    good: dict[str, Any], tmp_path: Path
) -> None:
    """`verify_bundle_file` (a record at a time) on amended bundles: their standings
    depend on the amendments, which come after them in the file; the verdict and the
    difference named are those of the parsed bundle's."""
    cases = {"good": (amend(good, _leader(good), "a solver"), ""), **tampered(good)}
    plain = tmp_path / "plain.json"
    plain.write_bytes(orjson.dumps(good))
    report, _ = verify_bundle_file(str(plain))
    assert report.ok, report.error  # no disqualified: rows compared as they are read
    for name, (doc, fragment) in cases.items():
        path = tmp_path / "bundle.json"
        path.write_bytes(orjson.dumps(doc))
        streamed, _ = verify_bundle_file(str(path))
        parsed = verify_document(doc)
        assert (streamed.ok, streamed.error) == (parsed.ok, parsed.error), name
        assert fragment in (streamed.error or ""), (name, streamed.error)
    unamended = copy.deepcopy(good)
    unamended["amendments"] = [{"player": "ghost", "reason": "x", "at": "2026-11-30T21:00:00Z"}]
    path.write_bytes(orjson.dumps(unamended))
    streamed, _ = verify_bundle_file(str(path))
    assert not streamed.ok and "no record of that player" in (streamed.error or "")
