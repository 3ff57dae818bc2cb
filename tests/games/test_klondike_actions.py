"""Klondike's actions at the edge (server/games/klondike_actions.py): JSON becomes typed
actions with klondike_core's place members, bad data is refused with a clear message, and
an action written back is its wire form byte for byte."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import TypeAdapter, ValidationError

from server.games.base import MalformedAction, action_data
from server.games.klondike import KLONDIKE
from server.games.klondike_actions import (
    Auto,
    Draw,
    Move,
    PlaceField,
    Resign,
    validate_action,
)
from server.games.klondike_core import FOUNDATIONS, PLACES, TABLEAU, WASTE
from tests.conftest import load_vector


def test_validate_action_reads_each_kind_into_its_model() -> None:
    assert validate_action({"kind": "draw"}) == Draw()
    assert validate_action({"kind": "auto"}) == Auto()
    assert validate_action({"kind": "resign"}) == Resign()
    move = validate_action({"kind": "move", "from": "t6", "to": "t0", "count": 13})
    assert move == Move(source=TABLEAU[6], to=TABLEAU[0], count=13)
    with pytest.raises(ValidationError):
        validate_action({"kind": "move", "from": "t6", "to": "t0", "count": 14})


def test_a_place_in_the_json_schema_is_one_of_the_protocol_texts() -> None:
    schema = TypeAdapter(PlaceField).json_schema()
    assert schema == {"type": "string", "enum": list(PLACES)}


def test_an_action_is_immutable() -> None:
    move = Move(source=WASTE, to=FOUNDATIONS[0])
    with pytest.raises(ValidationError):
        move.count = 2  # type: ignore[misc]


@pytest.mark.parametrize(
    "data",
    [
        {"kind": "move", "from": "t7", "to": "t0"},
        {"kind": "move", "from": "waste"},
        {"kind": "move", "from": "t0", "to": "t1", "count": 0},
        {"kind": "move", "from": "t0", "to": "t1", "count": "2"},
        {"kind": "shuffle"},
        {"kind": "draw", "n": 3},
    ],
)
def test_malformed(data) -> None:
    with pytest.raises(MalformedAction):
        KLONDIKE.parse_action(data)


def test_action_round_trip_uses_protocol_names() -> None:
    a = KLONDIKE.parse_action({"kind": "move", "from": "waste", "to": "fH"})
    assert a.model_dump(mode="json", by_alias=True) == {
        "kind": "move",
        "from": "waste",
        "to": "fH",
        "count": 1,
    }


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


def _klondike_actions_in_vectors() -> list[dict[str, Any]]:
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
