"""The records every layer shares (model.py): an action's canonical text (RECORD.md), keys
sorted at every level, no whitespace, non-ASCII escaped, the same whichever path makes
it; equal actions, equal texts."""

from __future__ import annotations

import json

from server.domain.model import canonical_json


def test_keys_sorted_at_every_level_and_no_whitespace() -> None:
    action = {"to": "t3", "kind": "move", "from": {"b": 1, "a": [2, {"z": 0, "y": None}]}}
    assert canonical_json(action) == (
        '{"from":{"a":[2,{"y":null,"z":0}],"b":1},"kind":"move","to":"t3"}'
    )
    assert canonical_json(dict(reversed(list(action.items())))) == canonical_json(action)


def test_non_ascii_is_escaped_as_the_slow_path_writes_it() -> None:
    action = {"kind": "resign", "note": "João ♥"}
    text = canonical_json(action)
    assert text.isascii() and "\\u00e3" in text and "\\u2665" in text
    assert text == json.dumps(action, sort_keys=True, separators=(",", ":"))
    assert json.loads(text) == action
