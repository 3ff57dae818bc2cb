"""Player names (PROTOCOL.md v1.4 "Players"): what a name may be, and when two are one.

A name is normalised to NFC before anything else, then must be 1-32 code points of
Unicode letters (general category L), each followed by any combining marks (M), the
digits 0-9, `_` and `-`. All its letters belong to one script (the Unicode Script
property, Common and Inherited aside) or to one of UTS #39's "highly restrictive" sets
(Latin with Han and Japanese kana, with Han and Bopomofo, with Han and Hangul), so a
Cyrillic "о" cannot hide inside a Latin name. Two names are the same player when their
`name_key`s are equal: the NFC form lower-cased with Unicode's default full case mapping
(`str.lower`). The same key, compared code point by code point, orders the rows of a
shared rank (COMPETITION.md "Ranking"; server/domain/ranking.py).

The script of a character comes from fontTools' copy of the Unicode Character Database
(`fontTools.unicodedata.script`): Python's own `unicodedata` has no Script property.
"""

from __future__ import annotations

import unicodedata

from fontTools import unicodedata as ucd

MAX_LENGTH = 32
NAME_RULE = (
    "a name is 1-32 letters (with their accents), digits, '_' or '-', all its letters"
    " in one alphabet"
)

_COMMON, _INHERITED = "Zyyy", "Zinh"
_HIGHLY_RESTRICTIVE = (
    frozenset({"Latn", "Hani", "Hira", "Kana"}),
    frozenset({"Latn", "Hani", "Bopo"}),
    frozenset({"Latn", "Hani", "Hang"}),
)
_SYMBOLS = frozenset("0123456789_-")


class BadName(ValueError):
    """A name that breaks the rule; its text is the one-line reason in English, `params`
    what is wrong for a client to say in its language (PROTOCOL.md's `reason`/`params`):
    `why` is `length` (with `length`, `max`), `character` (with `character`, the first
    one that is not allowed) or `scripts` (with `scripts`, the alphabets mixed)."""

    def __init__(self, text: str, **params: object) -> None:
        super().__init__(text)
        self.params: dict[str, object] = params


def normalise(name: str) -> str:
    """The name as it is stored and shown: its NFC form, checked; `BadName` otherwise."""
    nfc = unicodedata.normalize("NFC", name)
    if not 1 <= len(nfc) <= MAX_LENGTH:
        raise BadName(NAME_RULE, why="length", length=len(nfc), max=MAX_LENGTH)
    scripts: set[str] = set()
    after_letter = False
    for ch in nfc:
        category = unicodedata.category(ch)
        if category[0] == "L":
            after_letter = True
        elif category[0] == "M" and after_letter:
            pass
        elif ch in _SYMBOLS:
            after_letter = False
        else:
            raise BadName(NAME_RULE, why="character", character=_shown(ch))
        script: str = ucd.script(ch)
        if script not in (_COMMON, _INHERITED):
            scripts.add(script)
    if not _one_script(scripts):
        mixed = sorted(str(ucd.script_name(code)) for code in scripts)
        raise BadName(
            f"{NAME_RULE}: this one mixes {_scripts_in_words(mixed)}",
            why="scripts",
            scripts=" + ".join(mixed),
        )
    return nfc


def _one_script(scripts: set[str]) -> bool:
    return len(scripts) <= 1 or any(scripts <= allowed for allowed in _HIGHLY_RESTRICTIVE)


def name_key(name: str) -> str:
    """Two names are one player when their keys are equal; the key also orders names."""
    return unicodedata.normalize("NFC", name).lower()


def _scripts_in_words(words: list[str]) -> str:
    return ", ".join(words[:-1]) + " and " + words[-1] + " letters"


def _shown(ch: str) -> str:
    """A refused character as a person can see it: quoted when printable, else U+XXXX."""
    return f"'{ch}'" if ch.isprintable() else f"U+{ord(ch):04X}"
