"""Klondike places: parsed once into typed members, written back byte for byte."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from server.games.base import MalformedAction, action_data
from server.games.klondike import KLONDIKE, Move
from server.games.klondike_core import (
    FOUNDATIONS,
    PLACES,
    TABLEAU,
    WASTE,
    BadPlace,
    Foundation,
    Tableau,
    Waste,
    parse_place,
)
from tests.conftest import load_vector

GAMES = Path(__file__).parents[2] / "server" / "games"


def test_every_place_text_names_one_typed_member() -> None:
    assert list(PLACES) == ["waste", *(f"t{i}" for i in range(7)), "fC", "fD", "fH", "fS"]
    assert PLACES["waste"] is WASTE and isinstance(WASTE, Waste)
    for i in range(7):
        place = PLACES[f"t{i}"]
        assert place is TABLEAU[i] and isinstance(place, Tableau) and place.column == i
    for suit, letter in enumerate("CDHS"):
        place = PLACES["f" + letter]
        assert place is FOUNDATIONS[suit] and isinstance(place, Foundation)
        assert place.suit == suit
    assert all(p.text == text == str(p) for text, p in PLACES.items())


def test_the_parser_hands_the_engine_typed_places() -> None:
    a = KLONDIKE.parse_action({"kind": "move", "from": "t3", "to": "fH"})
    assert isinstance(a, Move)
    assert a.source is TABLEAU[3] and a.to is FOUNDATIONS[2] and a.count == 1
    w = KLONDIKE.parse_action({"kind": "move", "from": "waste", "to": "t0"})
    assert isinstance(w, Move) and w.source is WASTE and w.to is TABLEAU[0]
    assert a == Move(source=TABLEAU[3], to=FOUNDATIONS[2]) == Move(source="t3", to="fH")


@pytest.mark.parametrize(
    ("data", "words"),
    [
        ({"kind": "move", "from": "t7", "to": "t0"}, ["from", "unknown place 't7'"]),
        ({"kind": "move", "from": "t0", "to": "fX"}, ["to", "unknown place 'fX'"]),
        ({"kind": "move", "from": "w", "to": "t0"}, ["from", "unknown place 'w'"]),
        ({"kind": "move", "from": "T3", "to": "t0"}, ["from", "unknown place 'T3'"]),
        ({"kind": "move", "from": "", "to": "t0"}, ["from", "unknown place ''"]),
        ({"kind": "move", "from": "t1", "to": 3}, ["to", "a place is one of the texts"]),
        ({"kind": "move", "from": ["t1"], "to": "t0"}, ["from", "a place is one of the texts"]),
        ({"kind": "move", "from": None, "to": "t0"}, ["from", "a place is one of the texts"]),
        ({"kind": "move", "from": {"t": 1}, "to": "t0"}, ["from", "a place is one of the texts"]),
        ({"kind": "move", "to": "t0"}, ["from", "Field required"]),
    ],
)
def test_malformed_places_are_refused_with_a_clear_message(data, words) -> None:
    with pytest.raises(MalformedAction) as info:
        KLONDIKE.parse_action(data)
    assert info.value.reason == "bad_action"
    assert info.value.message.startswith("bad Klondike action: move.")
    for word in words:
        assert word in info.value.message
    if "unknown place" in info.value.message:
        assert "waste, t0..t6, fC, fD, fH or fS" in info.value.message


def test_parse_place_outside_pydantic() -> None:
    assert parse_place("fS") is FOUNDATIONS[3]
    for bad in ("t9", "waste ", 1, None):
        with pytest.raises(BadPlace, match="unknown place"):
            parse_place(bad)


def _klondike_actions_in_vectors() -> list[dict]:
    out = []
    for case in load_vector("verify-cases-v1.json")["cases"]:
        doc = case["document"]
        recs = doc.get("records", [doc])
        for rec in recs:
            if rec["tournament"]["game"] == "klondike":
                out.extend(a["action"] for a in rec["actions"])
    return out


def test_json_form_is_byte_for_byte_what_records_hold() -> None:
    stored = _klondike_actions_in_vectors()
    assert any(a["kind"] == "move" for a in stored)
    for a in stored:
        again = action_data(KLONDIKE.parse_action(a))
        assert json.dumps(again, separators=(",", ":")) == json.dumps(a, separators=(",", ":"))
    for text in PLACES:
        for to in ("t0", "fC"):
            if text != to:
                raw = {"kind": "move", "from": text, "to": to, "count": 1}
                out = action_data(KLONDIKE.parse_action(raw))
                assert json.dumps(out) == json.dumps(raw)
                assert all(type(v) in (str, int) for v in out.values())  # plain JSON types
    hint = Move(source=WASTE, to=TABLEAU[4])
    assert (
        json.dumps(action_data(hint)) == '{"kind": "move", "from": "waste", "to": "t4", "count": 1}'
    )
    assert hint.model_dump() == {"kind": "move", "source": "waste", "to": "t4", "count": 1}


def _string_compares(path: Path) -> list[str]:
    """Comparisons and subscripts that read a place's text: `x == "waste"`, `p[0] == "t"`,
    `int(p[1])`."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            if any(isinstance(o, ast.Constant) and isinstance(o.value, str) for o in operands):
                found.append(f"{path.name}:{node.lineno} {ast.unparse(node)}")
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "int"
            and node.args
            and isinstance(node.args[0], ast.Subscript)
        ):
            found.append(f"{path.name}:{node.lineno} {ast.unparse(node)}")
    return found


def test_the_engine_and_the_search_never_read_place_texts() -> None:
    """Every Klondike module but klondike_core (which reads the texts once, into members)."""
    paths = [p for p in GAMES.glob("klondike*.py") if p.name != "klondike_core.py"]
    assert {"klondike.py", "klondike_state.py", "klondike_search.py"} <= {p.name for p in paths}
    for path in sorted([*paths, GAMES / "random_play.py"]):
        assert _string_compares(path) == []


def test_the_string_scan_catches_what_it_looks_for(tmp_path: Path) -> None:
    old = tmp_path / "old.py"
    old.write_text('if m.source == "waste" or m.to[0] == "f":\n    col = int(m.source[1])\n')
    assert len(_string_compares(old)) == 3
