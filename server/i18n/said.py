"""Sentences made where the language is not known yet (the verifier's check lines in
server/audit, the fair-play findings' reasons): a `Said` is the English text, a plain
`str` to every caller that compares or prints it, that also keeps its catalogue key and
params, so that whoever shows it says it again in the reader's language with `speak`.

A param may itself be a `Said` ("record of João (player 3)" inside a check line), and a
`Said` given as a param to `translate` (`t`) is said in that call's language: a message
can carry a sentence made below it. Pure, like the rest of server/i18n."""

from __future__ import annotations

from typing import Any

from server.i18n import ENGLISH, catalogue, translate


class Said(str):
    """English text (str's value) with the `key` and `params` it was made from."""

    key: str
    params: dict[str, object]

    def __new__(cls, key: str, params: dict[str, object]) -> Said:
        made = super().__new__(cls, translate(ENGLISH, key, **params))
        made.key = key
        made.params = params
        return made

    def in_language(self, lang: str) -> str:
        """This sentence in `lang` (its Said params too: `translate` says them)."""
        return translate(lang, self.key, **self.params)

    def __reduce__(self) -> Any:  # pickles (a process pool) keep the key too
        return (Said, (self.key, self.params))


class Told(Said):
    """A game's own sentence (an `ActionError`'s message, naming the very card or cell),
    kept with its stable reason: English is the message itself, another language says
    `reason.<reason>` (the words a player is told), as an error reply is said."""

    def __new__(cls, reason: str, message: str) -> Told:
        made = str.__new__(cls, message)
        made.key = f"reason.{reason}"
        made.params = {}
        made.reason = reason
        return made

    reason: str

    def in_language(self, lang: str) -> str:
        if lang == ENGLISH or self.key not in catalogue(ENGLISH):
            return str(self)
        return translate(lang, self.key)

    def __reduce__(self) -> Any:
        return (Told, (self.reason, str(self)))


def told(reason: str, message: str) -> Told:
    """A game's `message` for its `reason`, said in the reader's language (`Told`)."""
    return Told(reason, message)


def said(key: str, **params: object) -> Said:
    """The catalogue's `key` said in English, kept to be said again in another language."""
    return Said(key, params)


def speak(lang: str, text: str) -> str:
    """`text` in `lang` when it is a `Said` (its Said params too), else unchanged. A `Said`
    given as a param to `translate` is said in its language without this."""
    return text.in_language(lang) if isinstance(text, Said) else str(text)
