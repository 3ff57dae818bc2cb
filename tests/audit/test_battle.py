"""Team battles in bundles (RECORD.md "Additions (v1.4): clubs and team battles"): a
battle bundle verifies, with a disqualification or an erasure applied; a wrong score,
order or rank list, a missing or doubled club, `clubs` missing from a battle or present
in a bundle that is no battle, a record's club not in the battle, a row's club not its
record's are differences. `corpus` is shared with the browser's verifier's test
(tests/web/test_js_battle.py), which holds both to the same words."""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest

from server.audit.untrusted import Unreadable
from server.audit.verify import verify_bundle_file, verify_document
from tests.audit.test_amended import _bundle, _leader
from tests.support.battle import again, battle_of
from tests.support.fairplay import amend
from tests.web.test_js_erasures import erase

CLUBS = {"p1": 11, "p2": 12, "p3": 11, "p4": 13, "p5": 12}


def corpus() -> dict[str, Any]:
    """Battle bundles by name: `ok ...` verify, `tampered ...` differ, `unreadable ...`
    cannot be read."""
    plain = _bundle()
    good = battle_of(plain, CLUBS)
    leader = _leader(good)
    amended = again(amend(good, leader, "solver"))
    docs: dict[str, Any] = {
        "ok battle": good,
        "ok battle, counted 1": battle_of(plain, CLUBS, counted=1),
        "ok battle with an amendment": amended,
        "ok battle with an erasure": again(erase(good, str(good["standings"][1]["player"]))),
        "ok a named club without entries": battle_of(plain, CLUBS, named=[11, 12, 13, 14]),
        "ok a club's name is not checked": copy.deepcopy(good),
        "ok no battle: a record's club is not read": copy.deepcopy(plain),
    }
    docs["ok a club's name is not checked"]["clubs"][0]["name"] = "Anyone"
    docs["ok no battle: a record's club is not read"]["records"][0]["club"] = 99

    def bad(name: str, change: Callable[[dict[str, Any]], Any], base: Any = good) -> None:
        doc = copy.deepcopy(base)
        change(doc)
        docs[name] = doc

    bad("tampered wrong score", lambda b: b["clubs"][0].update(score=b["clubs"][0]["score"] + 1))
    bad("tampered wrong order", lambda b: b["clubs"].reverse())
    bad("tampered wrong counted ranks", lambda b: b["clubs"][0]["counted_ranks"].reverse())
    bad("tampered a club missing", lambda b: b["clubs"].pop())
    bad("tampered a club twice", lambda b: b["clubs"].__setitem__(2, b["clubs"][0]))
    bad("tampered a club not in the battle", lambda b: b["clubs"][2].update(club=99))
    bad("tampered no clubs in a battle", lambda b: b.pop("clubs"))
    bad("tampered clubs null in a battle", lambda b: b.update(clubs=None))
    bad("tampered clubs in a bundle that is no battle", lambda b: b.update(clubs=[]), plain)
    bad("tampered a record's club not the battle's", lambda b: _move(b, "p4", 99))
    bad("tampered a record without a club", lambda b: b["records"][0].pop("club"))
    bad("tampered a row's club not its record's", lambda b: _row(b, "p1").update(club=12))
    bad("tampered a row without its club", lambda b: _row(b, "p1").pop("club"))
    bad("tampered a player moved to another club", lambda b: _move(b, "p4", 11))
    bad("tampered table ignores the amendment", lambda b: b.update(clubs=good["clubs"]), amended)
    bad("unreadable battle clubs not ids", lambda b: _battle(b, {"clubs": ["a"], "counted": 2}))
    bad("unreadable battle without counted", lambda b: _battle(b, {"clubs": [11, 12]}))
    bad("unreadable battle a list", lambda b: _battle(b, [11, 12]))
    bad("unreadable a record's club a string", lambda b: b["records"][0].update(club="11"))
    bad("unreadable a line without score", lambda b: b["clubs"][0].pop("score"))
    bad("unreadable ranks not a list", lambda b: b["clubs"][0].update(counted_ranks="1"))
    bad("unreadable a rank a bool", lambda b: b["clubs"][0].update(counted_ranks=[True]))
    bad("unreadable clubs an object", lambda b: b.update(clubs={"club": 11}))
    bad("unreadable a line a number", lambda b: b.update(clubs=[3]))
    return docs


def _row(b: dict[str, Any], player: str) -> dict[str, Any]:
    return next(r for r in b["standings"] if r["player"] == player)


def _move(b: dict[str, Any], player: str, club: int) -> None:
    """The player's record and row both moved (the rows stay consistent)."""
    next(r for r in b["records"] if r["player"]["name"] == player)["club"] = club
    _row(b, player)["club"] = club


def _battle(b: dict[str, Any], battle: Any) -> None:
    for t in [b["tournament"], *(r["tournament"] for r in b["records"])]:
        t["battle"] = battle


CORPUS = corpus()
WHY = {  # a fragment of the difference each tampered bundle must be refused with
    "tampered wrong score": "clubs line 1 is",
    "tampered wrong order": "clubs line 1 is",
    "tampered wrong counted ranks": "clubs line 1 is",
    "tampered a club missing": "clubs lists the clubs [12, 11], the battle names [11, 12, 13]",
    "tampered a club twice": "bundle: clubs lists the clubs",
    "tampered a club not in the battle": "bundle: clubs lists the clubs",
    "tampered no clubs in a battle": "the bundle carries no clubs",
    "tampered clubs null in a battle": "the bundle carries no clubs",
    "tampered clubs in a bundle that is no battle": "but the tournament is no battle",
    "tampered a record's club not the battle's": "its club 99 is not one of the battle's clubs",
    "tampered a record without a club": "its club None is not one of the battle's clubs",
    "tampered a row's club not its record's": "standings row",
    "tampered a row without its club": "standings row",
    "tampered a player moved to another club": "clubs line",
    "tampered table ignores the amendment": "clubs line 1 is",
}


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_battle_bundle(name: str) -> None:
    doc = CORPUS[name]
    if name.startswith("unreadable"):
        with pytest.raises(Unreadable, match="bundle is malformed"):
            verify_document(doc)
        return
    report = verify_document(doc)
    if name.startswith("ok"):
        assert report.ok, report.error
        battle = doc["tournament"].get("battle")
        assert any(line.startswith("battle: the ") for line in report.checked) == bool(battle)
    else:
        assert not report.ok and WHY[name] in (report.error or ""), report.error


def test_the_tampered_table_names_what_the_standings_give() -> None:
    error = verify_document(CORPUS["tampered wrong score"]).error
    good = CORPUS["ok battle"]["clubs"][0]
    assert error == (
        f"clubs line 1 is {{'club': {good['club']}, 'counted_ranks': {good['counted_ranks']}, "
        f"'score': {good['score'] + 1}}}, the standings give {{'club': {good['club']}, "
        f"'counted_ranks': {good['counted_ranks']}, 'score': {good['score']}}}"
    )


@pytest.mark.parametrize(
    "name",
    [
        "ok battle",
        "ok battle with an amendment",
        "tampered wrong order",
        "tampered a row's club not its record's",
    ],
)
def test_a_battle_read_a_record_at_a_time_gets_the_same_verdict(name: str, tmp_path: Path) -> None:
    """verify_bundle_file (rows compared as read, or kept when one is disqualified)."""
    path = tmp_path / "bundle.json"
    path.write_bytes(orjson.dumps(CORPUS[name]))
    streamed, _ = verify_bundle_file(str(path))
    whole = verify_document(CORPUS[name])
    assert (streamed.ok, streamed.error, streamed.checked) == (
        whole.ok,
        whole.error,
        whole.checked,
    )
