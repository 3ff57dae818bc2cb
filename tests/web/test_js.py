"""The in-browser verifier's JavaScript, run by node: its own tests against the contract's
vectors (tests/web/js/*.test.mjs), and side by side with the Python verifier on the same
records and bundles, tampered ones included: same verdict, same lines, same first
difference."""

from __future__ import annotations

import copy
import hashlib
import json
import random
import subprocess
from pathlib import Path
from typing import Any

import pytest

from server.audit import drand
from server.audit.untrusted import Unreadable
from server.audit.verify import verify_document
from server.games import random_play
from server.games.klondike import KLONDIKE
from tests.support import factories
from tests.support.beacon import KEYED_NETWORKS, beacon_documents
from tests.web.support import JS_TESTS, ROOT, require_node

SEED = bytes.fromhex("e4c537b6139465e60d1e3dc91d26a884e7b04b4d57558cedeb4b13dff5d68d97")
K_SEED = bytes.fromhex("5e" * 32)


def test_node_runs_the_vector_tests() -> None:
    node = require_node()
    files = sorted(str(p) for p in JS_TESTS.glob("*.test.mjs"))
    assert files
    run = subprocess.run(
        [node, "--test", *files], capture_output=True, text=True, cwd=ROOT, timeout=300
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert "# fail 0" in run.stdout


# -- documents ---------------------------------------------------------------------
def gaps_bundle(n: int = 6) -> dict[str, Any]:
    t = factories.tournament(SEED)
    records = []
    for pid in range(1, n + 1):
        rnd = random.Random(pid)
        moves = rnd.choice([0, 5, 40, 400])
        actions = factories.play_gaps(SEED, pid, moves, rnd, resign=pid % 3 == 0)
        records.append(factories.record(t, pid, f"p{pid}", actions))
    return factories.bundle(t, records)


def klondike_bundle(options: dict[str, Any], n: int = 4, solution: bool = False) -> dict[str, Any]:
    t = factories.tournament(K_SEED, game="klondike", options=options)
    opts = KLONDIKE.parse_options(options)
    if solution:
        prepared = KLONDIKE.prepare_deal(K_SEED, opts)
        t["deal_attempt"], t["solution"] = prepared.deal_attempt, prepared.solution
    records = []
    for pid in range(1, n + 1):
        rnd = random.Random(100 + pid)
        actions = random_play.random_actions(
            KLONDIKE, K_SEED, rnd, opts, player_id=pid, limit=rnd.choice([0, 30, 150])
        )
        if t["deal_attempt"]:
            actions = []  # random play deals attempt 0; keep the records legal
        if pid == n and t["solution"]:
            actions = list(t["solution"])
        records.append(factories.record(t, pid, f"k{pid}", actions))
    return factories.bundle(t, records)


def tampered(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Named variants of a good bundle, each changed in one place."""
    out: dict[str, dict[str, Any]] = {}

    def variant(name: str):  # type: ignore[no-untyped-def]
        def put(change):  # type: ignore[no-untyped-def]
            bad = copy.deepcopy(doc)
            change(bad)
            out[name] = bad

        return put

    longest = max(range(len(doc["records"])), key=lambda i: len(doc["records"][i]["actions"]))
    rec = f"records.{longest}"
    r = lambda b: b["records"][longest]  # noqa: E731

    variant("seed")(lambda b: b["tournament"].update(seed="00" * 32))
    variant("seed hidden")(lambda b: b["tournament"].update(seed=None))
    variant("seed short")(lambda b: b["tournament"].update(seed="abcd"))
    variant("seed not hex")(lambda b: b["tournament"].update(seed="zz" + "0" * 62))
    variant("game")(lambda b: b["tournament"].update(game="chess"))
    variant("progress")(lambda b: r(b)["result"].update(progress=r(b)["result"]["progress"] + 1))
    variant("resets")(lambda b: r(b)["result"].update(resets=r(b)["result"]["resets"] + 1))
    variant("score")(lambda b: r(b)["result"].update(score=r(b)["result"]["score"] + 5))
    variant("status")(lambda b: r(b)["result"].update(status="won"))
    variant("time")(lambda b: r(b)["result"].update(time_ms=r(b)["result"]["time_ms"] + 1))
    if len(doc["records"][longest]["actions"]) > 3:
        variant("seq hole")(lambda b: r(b)["actions"][2].update(seq=9))
        variant("at_ms back")(lambda b: r(b)["actions"][2].update(at_ms=0))
        variant("dropped action")(lambda b: r(b)["actions"].pop())
        variant("log hash")(lambda b: r(b).update(log_hash="ab" * 32))
        variant("log hash removed")(lambda b: r(b).pop("log_hash"))
        variant("swapped actions")(lambda b: _swap_actions(r(b)["actions"]))
    variant("player id")(lambda b: r(b)["player"].update(id=99))
    variant("log root")(lambda b: b.update(log_root="cd" * 32))
    variant("log root removed")(lambda b: b.pop("log_root"))
    variant("standings swapped")(
        lambda b: b["standings"].__setitem__(slice(0, 2), b["standings"][1::-1])
    )
    variant("standings row lost")(lambda b: b["standings"].pop())
    variant("standings rank")(lambda b: b["standings"][-1].update(rank=1))
    variant("duplicate name")(
        lambda b: b["records"][1]["player"].update(name=b["records"][0]["player"]["name"].upper())
    )
    variant("duplicate id")(
        lambda b: b["records"][1]["player"].update(id=b["records"][0]["player"]["id"])
    )
    variant("other tournament")(lambda b: b["records"][1]["tournament"].update(name="other"))
    variant("options")(lambda b: b["tournament"].update(options={"redeals": 9, "draw": 2}))
    variant("extra option")(lambda b: b["tournament"]["options"].update(colour="red"))
    variant("not a format")(lambda b: b.update(format="samedeal-bundle/9"))
    variant("no standings")(lambda b: b.pop("standings"))
    variant("seq as text")(lambda b: r(b)["actions"] and r(b)["actions"][0].update(seq="1"))
    variant("player id as text")(lambda b: r(b)["player"].update(id=str(r(b)["player"]["id"])))
    variant("times unreadable")(lambda b: [x.update(started_at="yesterday") for x in b["records"]])
    variant("long odd name")(lambda b: r(b)["player"].update(name="x" * 90 + "\n\u00e9\u200b'\""))
    variant("long claimed hash")(lambda b: r(b).update(log_hash="ab" * 60))
    variant("rich action")(
        lambda b: r(b)["actions"][0].update(
            action={"kind": "move", "to": [0, 0], "a": 1, "b": [1, [2, [3, [4]]]], "c": "y" * 200}
        )
    )
    out[f"record {rec}"] = copy.deepcopy(doc["records"][longest])
    return out


def _swap_actions(actions: list[dict[str, Any]]) -> None:
    """The first two actions exchanged, each keeping its seq and at_ms."""
    actions[0]["action"], actions[1]["action"] = actions[1]["action"], actions[0]["action"]


def illegal_actions(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The longest record with its 3rd action replaced by wrong or malformed ones."""
    longest = max(doc["records"], key=lambda rec: len(rec["actions"]))
    game = doc["tournament"]["game"]
    if game == "gaps":
        actions = [
            {"kind": "move", "card": "KS", "to": [0, 0]},
            {"kind": "move", "card": "AS", "to": [1, 5]},
            {"kind": "move", "card": "ZZ", "to": [0, 0]},
            {"kind": "move", "card": "10h", "to": [0, 3]},
            {"kind": "move", "card": "2H", "to": [4, 0]},
            {"kind": "move", "card": "2H", "to": [0, 0], "x": 1},
            {"kind": "move", "card": "2H", "to": [0]},
            {"kind": "move", "card": "2H"},
            {"kind": "fly"},
            {"card": "2H"},
            {"kind": "redeal"},
        ]
    else:
        actions = [
            {"kind": "move", "from": "t9", "to": "t1"},
            {"kind": "move", "from": "t0", "to": "t0"},
            {"kind": "move", "from": "waste", "to": "waste"},
            {"kind": "move", "from": "t0", "to": "fH", "count": 2},
            {"kind": "move", "from": "fH", "to": "t1"},
            {"kind": "move", "from": "t1", "to": "t2", "count": 5},
            {"kind": "move", "from": "t1", "to": "t2", "count": 0},
            {"kind": "move", "from": "t6", "to": "fS"},
            {"kind": "move", "from": "t6", "to": "t0"},
            {"kind": "auto"},
            {"kind": "draw", "n": 1},
            {"kind": "jump"},
        ]
    out = {}
    for i, action in enumerate(actions):
        bad = copy.deepcopy(longest)
        if len(bad["actions"]) < 3:
            bad["actions"] += [
                {"seq": k, "at_ms": k, "action": {"kind": "resign"}} for k in (1, 2, 3)
            ]
            bad["actions"] = bad["actions"][:3]
            for k, a in enumerate(bad["actions"], start=1):
                a["seq"] = k
        bad["actions"][2]["action"] = action
        out[f"illegal {i}"] = bad
    return out


ACCENTED = ["zed", "Émile", "eva", "Ａna", "𝒜lex", "Zoë", "İsmail", "João", "Muñoz", "Ærø"]


def accented_names_documents() -> dict[str, Any]:
    """A Gaps bundle whose players all share one rank (each resigns at once), named in
    several alphabets: rows in the order of their names' NFC lower-cased code points
    (COMPETITION.md v1.4); the same rows in UTF-16 unit order, or in plain code point
    order of the names as written, are differences."""
    t = factories.tournament(SEED)
    records = [
        factories.record(t, pid, name, [{"kind": "resign"}])
        for pid, name in enumerate(ACCENTED, start=1)
    ]
    good = factories.bundle(t, records)
    utf16 = copy.deepcopy(good)
    utf16["standings"].sort(key=lambda row: row["player"].lower().encode("utf-16-be"))
    as_written = copy.deepcopy(good)
    as_written["standings"].sort(key=lambda row: row["player"])
    assert good["standings"] != utf16["standings"] != as_written["standings"]
    return {
        "accented names": good,
        "accented names: utf-16 order": utf16,
        "accented names: case-sensitive order": as_written,
    }


def python_verdict(doc: Any) -> dict[str, Any]:
    try:
        report = verify_document(doc)
    except Unreadable as exc:
        return {"unreadable": str(exc)}
    return {
        "ok": report.ok,
        "error": report.error,
        "checked": report.checked,
        "notes": report.notes,
    }


def js_verdicts(node: str, docs: dict[str, Any], tmp: Path) -> dict[str, dict[str, Any]]:
    paths = []
    for i, doc in enumerate(docs.values()):
        path = tmp / f"doc{i}.json"
        path.write_text(json.dumps(doc))
        paths.append(str(path))
    run = subprocess.run(
        [node, str(JS_TESTS / "verify_cli.mjs"), *paths],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    lines = run.stdout.splitlines()
    assert len(lines) == len(docs)
    return {name: json.loads(line) for name, line in zip(docs, lines, strict=True)}


def corpus() -> dict[str, Any]:
    docs: dict[str, Any] = {}
    cases = json.loads((ROOT / "tests" / "data" / "verify-cases-v1.json").read_text())["cases"]
    for c in cases:
        docs[f"case: {c['name']}"] = c["document"]
    bundles = {
        "gaps": gaps_bundle(),
        "klondike draw 3 passes 3": klondike_bundle({"draw": 3, "passes": 3}),
        "klondike draw 1": klondike_bundle({"draw": 1, "hints": True}),
        "klondike guaranteed": klondike_bundle({"draw": 1, "guaranteed": True}, solution=True),
    }
    for name, bundle in bundles.items():
        docs[name] = bundle
        for change, bad in {**tampered(bundle), **illegal_actions(bundle)}.items():
            docs[f"{name}: {change}"] = bad
    g = bundles["klondike guaranteed"]
    if g["tournament"]["solution"]:
        bad = copy.deepcopy(g)
        bad["tournament"]["solution"] = bad["tournament"]["solution"][:-1]
        for rec in bad["records"]:
            rec["tournament"] = copy.deepcopy(bad["tournament"])
        docs["klondike guaranteed: solution short"] = bad
        bad = copy.deepcopy(bad)
        bad["tournament"]["solution"][0] = {"kind": "move", "from": "t0", "to": "t0"}
        docs["klondike guaranteed: solution illegal"] = bad
    docs.update(accented_names_documents())
    docs["not json object"] = [1, 2]
    docs["empty object"] = {}
    return docs


@pytest.fixture(scope="module")
def verdicts(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], dict[str, Any]]:
    node = require_node()
    docs = corpus()
    js = js_verdicts(node, docs, tmp_path_factory.mktemp("docs"))
    py = {name: python_verdict(doc) for name, doc in docs.items()}
    return py, js


def test_the_corpus_has_good_and_tampered_documents_of_both_games(verdicts) -> None:
    py, _ = verdicts
    ok = [n for n, v in py.items() if v.get("ok")]
    failed = [n for n, v in py.items() if v.get("ok") is False]
    unreadable = [n for n, v in py.items() if "unreadable" in v]
    assert len(ok) >= 15 and len(failed) >= 100 and len(unreadable) >= 3
    assert any(n.startswith("klondike") for n in failed)
    assert any("solution" in line for v in py.values() for line in v.get("checked", []))


def test_accented_names_tie_order_is_checked_alike(verdicts) -> None:
    py, js = verdicts
    assert py["accented names"]["ok"] and js["accented names"]["ok"]
    for bad in ("accented names: utf-16 order", "accented names: case-sensitive order"):
        assert py[bad]["ok"] is False and js[bad] == py[bad]


def test_same_verdict_lines_and_first_difference(verdicts) -> None:
    """Every document: the same verdict, the same lines (what was checked, the notes) and
    word for word the same first difference, or the same reason it cannot be read."""
    py, js = verdicts
    differ = [(name, py[name], js[name]) for name in py if py[name] != js[name]]
    assert not differ, json.dumps(differ[:3], indent=1)[:6000]


# -- the beacon (RECORD.md v1.3) ------------------------------------------------------------
def beacon_corpus() -> dict[str, Any]:
    """Beacon bundles of both networks and keyed test networks, good and tampered, and
    malformed beacons."""
    docs = beacon_documents()
    good = docs["beacon quicknet"]
    for name, value in {
        "a number": 5,
        "a list": [],
        "no chain": {"network": "quicknet", "round": 1},
        "network a number": {"network": 1, "chain_hash": "x", "round": 1},
        "round as text": {"network": "quicknet", "chain_hash": "x", "round": "1"},
        "signature a number": {"network": "q", "chain_hash": "x", "round": 1, "signature": 5},
    }.items():
        bad = copy.deepcopy(good)
        bad["tournament"]["beacon"] = value
        docs[f"beacon malformed: {name}"] = bad
    return docs


def test_beacon_documents_same_verdict_in_both_verifiers(tmp_path: Path) -> None:
    """Each beacon document, with and without the keyed networks' file: the same verdict,
    lines and first difference in JavaScript as in Python."""
    node = require_node()
    docs = beacon_corpus()
    nets = tmp_path / "networks.json"
    nets.write_text(json.dumps(KEYED_NETWORKS))
    networks = drand.networks_from_json(KEYED_NETWORKS)
    for extra, chosen in (([], drand.BUILT_IN), (["--beacon-networks", str(nets)], networks)):
        paths = []
        for i, doc in enumerate(docs.values()):
            path = tmp_path / f"beacon{i}.json"
            path.write_text(json.dumps(doc))
            paths.append(str(path))
        run = subprocess.run(
            [node, str(JS_TESTS / "verify_cli.mjs"), *extra, *paths],
            capture_output=True,
            text=True,
            timeout=600,
            cwd=ROOT,
        )
        assert run.returncode == 0, run.stderr[-3000:]
        js = dict(zip(docs, map(json.loads, run.stdout.splitlines()), strict=True))
        py = {}
        for name, doc in docs.items():
            try:
                report = verify_document(doc, networks=chosen)
                py[name] = {
                    "ok": report.ok,
                    "error": report.error,
                    "checked": report.checked,
                    "notes": report.notes,
                }
            except Unreadable as exc:
                py[name] = {"unreadable": str(exc)}
        differ = [(n, py[n], js[n]) for n in docs if py[n] != js[n]]
        assert not differ, json.dumps(differ[:3], indent=1)[:6000]
        assert sum(v.get("ok") is True for v in py.values()) >= (6 if extra else 4)
        assert sum(v.get("ok") is False for v in py.values()) >= 24
        assert sum("unreadable" in v for v in py.values()) == 6


def test_the_vendored_bls_module_is_the_one_its_readme_names() -> None:
    vendor = ROOT / "server" / "web" / "vendor"
    digest = hashlib.sha256((vendor / "noble-bls12-381.js").read_bytes()).hexdigest()
    readme = (vendor / "README.md").read_text()
    assert f"sha256 of the result: `{digest}`" in readme
    assert "@noble/curves 2.4.0" in readme
