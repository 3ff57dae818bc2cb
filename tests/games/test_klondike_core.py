"""Klondike places: parsed once into typed members, written back byte for byte."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

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


def test_parse_place_outside_pydantic() -> None:
    assert parse_place("fS") is FOUNDATIONS[3]
    for bad in ("t9", "waste ", 1, None):
        with pytest.raises(BadPlace, match="unknown place"):
            parse_place(bad)


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
