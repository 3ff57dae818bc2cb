"""A long or multi-line difference made one line, still said in the reader's language."""

from __future__ import annotations

import pickle

from server.audit.oneline import OneLine, said_line
from server.i18n.said import said


def test_a_said_difference_is_one_line_in_every_language() -> None:
    exc = ValueError(said("audit.unreadable.key_twice", name="'a\nb'" + "x" * 400))
    line = said_line(exc)
    assert isinstance(line, OneLine) and "\n" not in line and line.endswith("…")
    spoken = line.in_language("es")
    assert "\n" not in spoken and spoken.startswith("un objeto") and spoken.endswith("…")
    assert pickle.loads(pickle.dumps(line)).in_language("es") == spoken


def test_a_plain_message_is_one_line_too() -> None:
    assert said_line(ValueError("a\nb")) == "a\\nb"
