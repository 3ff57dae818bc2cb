"""server/audit/oneline.py: a difference as one printable line, cut the same way in every
language, still said again in the reader's language; any other message cut as text."""

from __future__ import annotations

import pickle

from server.audit.oneline import OneLine, said_line
from server.i18n.said import said

LONG = "x" * 400


def long_difference() -> OneLine:
    return OneLine(
        said(
            "audit.diff.amendment_says",
            where="amendment 1\n",
            reason=LONG,
            at=5,
            record_reason="fair play",
            record_at=6,
        )
    )


def test_a_long_difference_is_one_line_in_english_and_in_another_language() -> None:
    line = long_difference()
    assert "\n" not in line and "\\n" in line and line.endswith("…") and len(line) == 301
    spanish = line.in_language("es")
    assert spanish.startswith("amendment 1\\n: dice ") and spanish.endswith("…")
    assert len(spanish) == 301


def test_it_keeps_its_key_across_a_pickle() -> None:
    again = pickle.loads(pickle.dumps(long_difference()))
    assert isinstance(again, OneLine) and again == long_difference()
    assert again.in_language("es") == long_difference().in_language("es")


def test_said_line_says_a_said_again_and_cuts_any_other_message() -> None:
    made = said_line(ValueError(said("audit.diff.amendment_says", where="w", reason="r",
                                     at=1, record_reason="q", record_at=2)))  # fmt: skip
    assert isinstance(made, OneLine) and made.in_language("es").startswith("w: dice r en 1")
    plain = said_line(ValueError("two\nlines"))
    assert plain == "two\\nlines" and not isinstance(plain, OneLine)
