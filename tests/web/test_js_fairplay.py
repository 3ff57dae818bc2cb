"""The browser's verifier (server/web/verify.js, in node) and the Python one on fair-play
bundles: one amended after the close both accept, with the same lines, and tampered ones
(standings ignoring the amendment, a disqualified entry ranked, amendments and records
disagreeing, malformed fields) both refuse with word for word the same difference."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from tests.audit.test_amended import _bundle, _leader, tampered
from tests.support.fairplay import amend, disqualify_before_close
from tests.web.support import require_node
from tests.web.test_js import js_verdicts, python_verdict


def corpus() -> dict[str, Any]:
    good = _bundle()
    leader = _leader(good)
    docs: dict[str, Any] = {
        "amended after the close": amend(good, leader, "a solver played the moves"),
        "two amendments": amend(
            amend(good, leader, "solver"),
            str(good["standings"][1]["player"]),
            "second account",
            "2026-11-30T21:00:00Z",
        ),
        "disqualified before the close": disqualify_before_close(good, leader, "shared line"),
        "bot marked": copy.deepcopy(good),
    }
    docs["bot marked"]["records"][0]["player"]["bot"] = True
    docs["bot marked"]["standings"] = [
        {**r, "bot": r["player"] == docs["bot marked"]["records"][0]["player"]["name"]}
        for r in docs["bot marked"]["standings"]
    ]
    docs["bot row wrong"] = copy.deepcopy(docs["bot marked"])
    docs["bot row wrong"]["standings"][0]["bot"] = not docs["bot row wrong"]["standings"][0]["bot"]
    for name, (doc, _) in tampered(good).items():
        docs[f"tampered: {name}"] = doc
    base = docs["amended after the close"]
    for name, change in {
        "amendments not a list": lambda b: b.update(amendments={"player": "x"}),
        "amendment not an object": lambda b: b.update(amendments=[3]),
        "amendment without reason": lambda b: b["amendments"][0].pop("reason"),
        "disqualified not an object": lambda b: b["records"][0].update(disqualified="yes"),
        "disqualified reason a number": lambda b: b["records"][0].update(
            disqualified={"reason": 3, "at": "x"}
        ),
        "row bot not a bool": lambda b: b["standings"][0].update(bot="no"),
        "row rank missing": lambda b: b["standings"][0].pop("rank"),
        "row rank text": lambda b: b["standings"][0].update(rank="1"),
        "row reason a number": lambda b: b["standings"][0].update(disqualified=5),
        "player bot a number": lambda b: b["records"][0]["player"].update(bot=1),
        "times unreadable": lambda b: [
            x.update(at="yesterday")
            for x in [
                *b["amendments"],
                *(r["disqualified"] for r in b["records"] if "disqualified" in r),
            ]
        ],
        "out of order": _earlier_amendment_later,
    }.items():
        bad = copy.deepcopy(base)
        change(bad)
        docs[f"malformed: {name}"] = bad
    return docs


def _earlier_amendment_later(b: dict[str, Any]) -> None:
    """A second disqualification listed before the first though made after it."""
    late = {"reason": "r", "at": "2026-11-30T22:00:00Z"}
    b["records"][0]["disqualified"] = late
    b["amendments"].insert(0, {"player": b["records"][0]["player"]["name"], **late})


def test_both_verifiers_agree_on_fair_play_bundles(tmp_path: Path) -> None:
    node = require_node()
    docs = corpus()
    js = js_verdicts(node, docs, tmp_path)
    py = {name: python_verdict(doc) for name, doc in docs.items()}
    differ = [(name, py[name], js[name]) for name in docs if py[name] != js[name]]
    assert not differ, differ[:3]
    for name in (
        "amended after the close",
        "two amendments",
        "disqualified before the close",
        "bot marked",
    ):
        assert py[name]["ok"], (name, py[name])
    assert any(
        "fair play: 2 disqualified, 2 of them" in line for line in py["two amendments"]["checked"]
    )
    refused = [n for n in docs if n.startswith(("tampered", "malformed")) or n == "bot row wrong"]
    assert refused and all(not py[n].get("ok") for n in refused), [
        (n, py[n]) for n in refused if py[n].get("ok")
    ]
    assert sum("unreadable" in py[n] for n in refused) >= 8
    assert "out of order" in py["malformed: out of order"]["error"]
