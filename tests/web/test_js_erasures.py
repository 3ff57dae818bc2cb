"""Deleted accounts in bundles (v1.4, RECORD.md "Additions (v1.4): deleted accounts"):
the browser's verifier (server/web/verify.js, in node) and the Python one give the same
verdict, word for word, on erasure amendments: valid ones (alone, after a
disqualification of the same player, a pseudonym without an erasure), tampered ones
(differences) and ones of an unknown kind or missing their id (unreadable)."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from tests.audit.test_amended import _bundle, _leader
from tests.support.fairplay import amend, rows_of
from tests.web.support import require_node
from tests.web.test_js import js_verdicts, python_verdict

AT = "2026-11-30T21:00:00Z"


def erase(bundle: dict[str, Any], name: str, at: str | None = AT) -> dict[str, Any]:
    """A copy with `name`'s account deleted: its record and amendments under the
    pseudonym, the standings made again (ties re-sorted), and (unless `at` is None: a
    deletion before the close) an erasure appended."""
    out = copy.deepcopy(bundle)
    [record] = [r for r in out["records"] if r["player"]["name"] == name]
    pid = record["player"]["id"]
    record["player"]["name"] = f"deleted-{pid}"
    for a in out.get("amendments", []):
        if a.get("player") == name:
            a["player"] = f"deleted-{pid}"
    if at is not None:
        out.setdefault("amendments", []).append({"kind": "erasure", "player_id": pid, "at": at})
    out["standings"] = rows_of(out)
    return out


def corpus() -> dict[str, Any]:
    good = _bundle()
    leader = _leader(good)
    second = str(good["standings"][1]["player"])
    erased = erase(good, second)
    pid = erased["amendments"][0]["player_id"]
    docs: dict[str, Any] = {
        "erasure": erased,
        "erasure after a disqualification": erase(amend(good, leader, "solver"), leader),
        "two erasures": erase(erased, leader, "2026-11-30T22:00:00Z"),
        "pseudonym without erasure": erase(good, second, None),
        "kinds named": copy.deepcopy(erase(amend(good, leader, "solver"), second)),
    }
    docs["kinds named"]["amendments"][0]["kind"] = "disqualification"

    def bad(name: str, change: Any, base: dict[str, Any] = erased) -> None:
        doc = copy.deepcopy(base)
        change(doc)
        docs[name] = doc

    bad(
        "tampered: erasure of an id not in the bundle",
        lambda b: b["amendments"][0].update(player_id=99),
    )
    bad("tampered: record keeps its name", lambda b: _rename(b, pid, second))
    bad("tampered: erased twice", lambda b: b["amendments"].append(dict(b["amendments"][0])))
    bad("tampered: rows not re-sorted by the pseudonym", _rows_keep_old_order(good, second))
    bad(
        "tampered: erasure before the disqualification above it",
        lambda b: b["amendments"][1].update(at="2026-11-30T19:30:00Z"),
        erase(amend(good, leader, "solver"), leader),
    )
    bad("unreadable: unknown kind", lambda b: b["amendments"][0].update(kind="merger"))
    bad("unreadable: erasure without player_id", lambda b: b["amendments"][0].pop("player_id"))
    bad("unreadable: player_id a string", lambda b: b["amendments"][0].update(player_id="2"))
    bad("unreadable: kind a number", lambda b: b["amendments"][0].update(kind=1))
    return docs


def _rename(b: dict[str, Any], pid: int, name: str) -> None:
    for r in b["records"]:
        if r["player"]["id"] == pid:
            r["player"]["name"] = name
    b["standings"] = rows_of(b)


def _rows_keep_old_order(good: dict[str, Any], name: str) -> Any:
    """The rows as they were before the deletion, only the name replaced: wrong whenever
    the old and new names sort differently among a shared rank."""

    def change(b: dict[str, Any]) -> None:
        pseudonym = next(
            r["player"]["name"] for r in b["records"] if r["player"]["name"].startswith("deleted-")
        )
        b["standings"] = [
            {**r, "player": pseudonym if r["player"] == name else r["player"]}
            for r in copy.deepcopy(good["standings"])
        ]
        b["standings"][0], b["standings"][1] = b["standings"][1], b["standings"][0]

    return change


def test_both_verifiers_agree_on_erasures(tmp_path: Path) -> None:
    node = require_node()
    docs = corpus()
    js = js_verdicts(node, docs, tmp_path)
    py = {name: python_verdict(doc) for name, doc in docs.items()}
    differ = [(name, py[name], js[name]) for name in docs if py[name] != js[name]]
    assert not differ, differ[:3]
    valid = [n for n in docs if not n.startswith(("tampered", "unreadable"))]
    assert all(py[n].get("ok") for n in valid), [(n, py[n]) for n in valid]
    assert any("deleted accounts: 1 erased" in line for line in py["erasure"]["checked"])
    tampered = [n for n in docs if n.startswith("tampered")]
    assert all(py[n].get("ok") is False for n in tampered), [(n, py[n]) for n in tampered]
    unreadable = [n for n in docs if n.startswith("unreadable")]
    assert all("unreadable" in py[n] for n in unreadable), [(n, py[n]) for n in unreadable]
    assert "unknown kind 'merger'" in py["unreadable: unknown kind"]["unreadable"]
    assert "erased twice" in py["tampered: erased twice"]["error"]
