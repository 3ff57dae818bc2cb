"""The in-browser verifier on the Gaps family variants (RULES-GAPS.md v1.4), side by side
with the Python verifier: bundles of each variant (random play with its redeals, and the
vectors' whole games as records), each tampered in every way test_js's corpus knows, plus
the variant's own tamperings (another variant claimed, a refused option set, a move only
another variant allows, a Montana 2 moved). Same verdict, same lines, same first
difference."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest

from server.games import random_play
from server.games.base import Status, action_data
from server.games.gaps import GAPS
from tests.support import factories
from tests.web.support import ROOT, require_node
from tests.web.test_js import SEED, illegal_actions, js_verdicts, python_verdict, tampered

VECTORS = json.loads((ROOT / "tests" / "data" / "gaps-variants-v1.json").read_text())
VARIANTS = ("montana", "addiction", "free_parking")


def variant_bundle(options: dict[str, Any], n: int = 6) -> dict[str, Any]:
    """Random players of a variant (some to their end, through redeals), as served: the
    options as the server dumps them (with `variant`)."""
    parsed = GAPS.parse_options(options)
    t = factories.tournament(SEED, options=parsed.model_dump())
    records = []
    for pid in range(1, n + 1):
        rnd = random.Random(1000 + pid)
        limit = rnd.choice([0, 8, 60, 400, 400])
        states = list(random_play.random_game(GAPS, SEED, rnd, parsed, player_id=pid, limit=limit))
        actions = [action_data(a) for _, a in states[1:] if a is not None]
        if pid % 4 == 0 and states[-1][0].status is Status.PLAYING:
            actions.append({"kind": "resign"})
        records.append(factories.record(t, pid, f"v{pid}", actions))
    return factories.bundle(t, records)


def vector_bundle(case: dict[str, Any]) -> dict[str, Any]:
    """The vectors' whole games of one case as the records of a bundle (its own seed)."""
    seed = bytes.fromhex(case["seed"])
    t = factories.tournament(seed, options=GAPS.parse_options(case["options"]).model_dump())
    records = [
        factories.record(t, g["player_id"], f"g{g['player_id']}", g["actions"])
        for g in case["games"]
    ]
    return factories.bundle(t, records)


def _first_move(doc: dict[str, Any], pick: Any) -> dict[str, Any]:
    """The longest record with its first action replaced by `pick(layout rows)`'s move."""
    rec = copy.deepcopy(max(doc["records"], key=lambda r: len(r["actions"])))
    if not rec["actions"]:
        rec["actions"] = [{"seq": 1, "at_ms": 0, "action": {"kind": "resign"}}]
    rec["actions"][0]["action"] = pick(doc)
    return rec


def own_tamperings(name: str, doc: dict[str, Any]) -> dict[str, Any]:
    """What only a variant bundle can get wrong."""
    out: dict[str, Any] = {}
    for other in ("gaps", *VARIANTS):
        if other == doc["tournament"]["options"].get("variant", "gaps"):
            continue
        bad = copy.deepcopy(doc)
        bad["tournament"]["options"]["variant"] = other
        bad["tournament"]["options"]["winnable"] = False
        if other == "montana":
            bad["tournament"]["options"]["redeal"] = "keep_runs"
        for rec in bad["records"]:
            rec["tournament"] = copy.deepcopy(bad["tournament"])
        out[f"claimed {other}"] = bad
        out[f"record claimed {other}"] = copy.deepcopy(bad["records"][0])
    for label, change in {
        "variant Montana": {"variant": "Montana"},
        "variant spaces": {"variant": "spaces"},
        "variant null": {"variant": None},
        "variant a list": {"variant": ["montana"]},
        "winnable": {"winnable": True},
        "reshuffle_all": {"redeal": "reshuffle_all"},
        "redeals 4": {"redeals": 4},
    }.items():
        bad = copy.deepcopy(doc)
        bad["tournament"]["options"].update(change)
        out[f"options {label}"] = bad
    legal = _initial_legal(doc)
    rows = legal["grid"]
    moves = {
        # a 2 moved off column 0 (montana refuses it whatever the gap)
        "a two moved": {"kind": "move", "card": "2C", "to": legal["gaps"][0]},
        # a gap's card by the right neighbour's rule where only free_parking allows it
        "right neighbour's card": _right_rule_move(rows, legal["gaps"]),
        # into a gap outside column 0 a card it never takes
        "wrong card": {"kind": "move", "card": "KS", "to": legal["gaps"][-1]},
    }
    for label, move in moves.items():
        if move is not None:
            out[f"first move: {label}"] = _first_move(doc, lambda _d, m=move: m)
    return {f"{name}: {k}": v for k, v in out.items()}


def _initial_legal(doc: dict[str, Any]) -> dict[str, Any]:
    opts = GAPS.parse_options(doc["tournament"]["options"])
    state = GAPS.new_game(bytes.fromhex(doc["tournament"]["seed"]), opts, player_id=1)
    view = state.view()
    gaps = [[r, c] for r, row in enumerate(view["grid"]) for c, x in enumerate(row) if x is None]
    gaps.sort(key=lambda g: g[1] == 0)  # outside column 0 first
    return {"grid": view["grid"], "gaps": gaps}


def _right_rule_move(rows: list[list[str | None]], gaps: list[list[int]]) -> dict[str, Any] | None:
    ranks = "A23456789TJQK"
    for r, c in gaps:
        right = rows[r][c + 1] if 0 < c < 12 else None
        if right and right[0] not in "2":
            card = ranks[ranks.index(right[0]) - 1] + right[1]
            return {"kind": "move", "card": card, "to": [r, c]}
    return None


def dead_gap_moves(name: str, doc: dict[str, Any]) -> dict[str, Any]:
    """Each record's first redeal replaced by a move into one of the blocked position's
    (dead) gaps: refused with why the gap is dead."""
    out = {}
    opts = GAPS.parse_options(doc["tournament"]["options"])
    seed = bytes.fromhex(doc["tournament"]["seed"])
    for rec in doc["records"]:
        kinds = [a["action"]["kind"] for a in rec["actions"]]
        if "redeal" not in kinds:
            continue
        k = kinds.index("redeal")
        before = [a["action"] for a in rec["actions"][:k]]
        state = GAPS.replay(seed, opts, before, player_id=rec["player"]["id"])
        view = state.view()
        gaps = [
            [r, c] for r, row in enumerate(view["grid"]) for c, x in enumerate(row) if x is None
        ]
        bad = copy.deepcopy(rec)
        bad["actions"][k]["action"] = {"kind": "move", "card": "5H", "to": max(gaps)}
        out[f"{name}: {rec['player']['name']} moves into a dead gap"] = bad
    return out


def corpus() -> dict[str, Any]:
    docs: dict[str, Any] = {}
    bundles = {f"{v} random": variant_bundle({"variant": v}) for v in VARIANTS}
    bundles["addiction reshuffle_all random"] = variant_bundle(
        {"variant": "addiction", "redeal": "reshuffle_all", "redeals": 1}
    )
    bundles["free_parking reshuffle_all random"] = variant_bundle(
        {"variant": "free_parking", "redeal": "reshuffle_all"}
    )
    for case in VECTORS["cases"]:
        name = f"{case['variant']} vectors {case['seed'][:8]} {case['options']['redeal']}"
        name += f" {case['options']['redeals']}"
        bundles.setdefault(name, vector_bundle(case))
    for name, bundle in bundles.items():
        docs[name] = bundle
        docs.update(dead_gap_moves(name, bundle))
        if "vectors" in name:
            continue
        for change, bad in {**tampered(bundle), **illegal_actions(bundle)}.items():
            docs[f"{name}: {change}"] = bad
        docs.update(own_tamperings(name, bundle))
    won = VECTORS["won_games"]
    for g in won:
        seed = bytes.fromhex(g["seed"])
        t = factories.tournament(seed, options=GAPS.parse_options(g["options"]).model_dump())
        rec = factories.record(t, g["player_id"], "winner", g["actions"])
        docs[f"won {g['options']['variant']}"] = factories.bundle(t, [rec])
        docs[f"won {g['options']['variant']}: record"] = rec
    return docs


@pytest.fixture(scope="module")
def verdicts(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], dict[str, Any]]:
    node = require_node()
    docs = corpus()
    js = js_verdicts(node, docs, tmp_path_factory.mktemp("variant-docs"))
    py = {name: python_verdict(doc) for name, doc in docs.items()}
    return py, js


def test_the_corpus_has_good_and_tampered_bundles_of_every_variant(verdicts: Any) -> None:
    py, _ = verdicts
    for variant in VARIANTS:
        assert py[f"{variant} random"]["ok"] is True, py[f"{variant} random"]
        assert py[f"won {variant}"]["ok"] is True
        failed = [n for n, v in py.items() if n.startswith(variant) and v.get("ok") is False]
        assert len(failed) >= 40, variant
    vectors = [n for n in py if " vectors " in n and ":" not in n]
    assert len(vectors) >= 15 and all(py[n]["ok"] for n in vectors)
    dead = [v["error"] for n, v in py.items() if "moves into a dead gap" in n]
    assert len(dead) >= 20 and all("illegal action" in e and "is dead" in e for e in dead)
    assert any(
        "fixed_two" in str(v) or "2s stay where they are dealt" in str(v) for v in py.values()
    )
    assert any("right of it is" in str(v) or "no right neighbour" in str(v) for v in py.values())
    assert any("unknown variant" in str(v) for v in py.values())
    assert sum("unreadable" in v for v in py.values()) >= 3


def test_same_verdict_lines_and_first_difference_on_variant_bundles(verdicts: Any) -> None:
    py, js = verdicts
    differ = [(name, py[name], js[name]) for name in py if py[name] != js[name]]
    assert not differ, json.dumps(differ[:3], indent=1)[:6000]


def test_a_played_redeal_and_end_appear_in_the_random_bundles(verdicts: Any) -> None:
    """The random bundles exercise each variant's redeal and an end, not only moves."""
    docs = corpus()
    for variant in VARIANTS:
        records = docs[f"{variant} random"]["records"]
        kinds = {a["action"]["kind"] for r in records for a in r["actions"]}
        assert "redeal" in kinds, variant
        assert {r["result"]["status"] for r in records} & {"lost", "resigned"}, variant
