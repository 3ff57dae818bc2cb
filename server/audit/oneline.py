"""A verifier's difference or unreadable reason as one printable line (`one_line`),
still a `Said` when it was made as one: `samedeal verify --lang` and the verify page say
it in the reader's language, cut the same way. Pure."""

from __future__ import annotations

from typing import Any

from server.audit.untrusted import one_line
from server.i18n.said import Said


class OneLine(Said):
    """A `Said` as one printable line (`one_line`), cut the same way in every language."""

    def __new__(cls, whole: Said) -> OneLine:
        made = str.__new__(cls, one_line(whole))
        made.key, made.params = whole.key, whole.params
        return made

    def in_language(self, lang: str) -> str:
        return one_line(super().in_language(lang))

    def __reduce__(self) -> Any:
        return (OneLine, (Said(self.key, self.params),))


def said_line(exc: BaseException) -> str:
    """The exception's message as one line: a `Said` (said again in the reader's
    language) when it was made as one."""
    first = exc.args[0] if len(exc.args) == 1 else None
    return OneLine(first) if isinstance(first, Said) else one_line(str(exc))
