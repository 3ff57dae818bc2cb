"""The language of a command line, `samedeal` or `samedeal-server` (docs/I18N.md): chosen
once per process from `--lang`, else LC_ALL, LC_MESSAGES, LANG; every text a person reads
goes through `t` / `tn` (the catalogues), times through `local` (Babel's day and month
names, the local time zone), the server's errors through `error_text` (its `reason` said
from the catalogue, its English `message` for a reason not known here), and argparse's own
words ("usage:", "options") through `install_argparse`. Logs stay English."""

from __future__ import annotations

import argparse
import os
import re
from collections.abc import Iterator, Mapping, Sequence
from datetime import datetime
from typing import Any, NoReturn

from server import i18n

_chosen = [i18n.ENGLISH]
_ISO = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d")


def choose(option: str | None, environ: Mapping[str, str] | None = None) -> str:
    """Set (and return) the language: `option` (--lang), else the environment's."""
    lang = i18n.from_environment(option, os.environ if environ is None else environ)
    _chosen[0] = lang
    return lang


def lang() -> str:
    return _chosen[0]


def option_in(argv: Sequence[str]) -> str | None:
    """The value of `--lang X` or `--lang=X` in `argv` (read before the parser is built, so
    that its help is in the language too)."""
    for i, arg in enumerate(argv):
        if arg == "--":
            break
        if arg == "--lang" and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith("--lang="):
            return arg.split("=", 1)[1]
    return None


def t(key: str, **params: object) -> str:
    """The catalogue's text for `key` in the chosen language."""
    return i18n.translate(_chosen[0], key, **params)


def tn(key: str, n: int, **params: object) -> str:
    """The plural text for `key` and `n` in the chosen language."""
    return i18n.translate_plural(_chosen[0], key, n, **params)


def said_error(exc: BaseException) -> str:
    """An exception's one line in the chosen language: its message when made as a `Said`
    (server/i18n/said.py; domain checks raise `ValueError(said(...))`), else as it is."""
    first = exc.args[0] if len(exc.args) == 1 else None
    in_language = getattr(first, "in_language", None)
    return str(in_language(_chosen[0])) if in_language is not None else str(exc)


def card(code: str) -> str:
    """A card's whole name ("seis de copas") from its code (6H)."""
    return t(f"card.{code}")


def local(when: datetime | str, seconds: bool = False, today: bool = True) -> str:
    """A moment in the user's local time: 14:05 today (when `today`), else Tue 2 Dec 14:05,
    with the language's day and month names."""
    if isinstance(when, str):
        when = datetime.fromisoformat(when)
    mine = when.astimezone()
    same_day = mine.date() == datetime.now().astimezone().date()
    if _chosen[0] == i18n.ENGLISH:  # the English the terminal always showed
        clock = mine.strftime("%H:%M:%S" if seconds else "%H:%M")
        if same_day and today:
            return clock
        return f"{mine.strftime('%a')} {mine.day} {mine.strftime('%b')} {clock}"
    if same_day and today:
        return i18n.when_pattern(_chosen[0], mine, "Hms" if seconds else "Hm")
    return i18n.day_and_time(_chosen[0], mine, seconds)


def span(seconds: int) -> str:
    """A length of time in its largest whole unit: "1 day", "6 hours", "90 seconds"."""
    for unit, size in (("days", 86400), ("hours", 3600), ("minutes", 60)):
        if seconds and seconds % size == 0:
            return tn(f"cli.unit.{unit}", seconds // size)
    return tn("cli.unit.seconds", seconds)


def _shown_param(value: Any) -> Any:
    if isinstance(value, str) and _ISO.match(value):
        try:
            return local(value, today=False)
        except ValueError:
            return value
    return value


def error_text(reply: Mapping[str, Any]) -> str:
    """An error reply in the chosen language: `reason.<reason>` with its params (a time
    shown local), else the server's English message. In English, the server's own message
    (it names the very card, cell or limit)."""
    reason = reply.get("reason")
    params = reply.get("params")
    given = params if isinstance(params, dict) else {}
    key = f"reason.{reason}"
    if _chosen[0] == i18n.ENGLISH:
        return str(reply.get("message", ""))
    english = i18n.catalogue(i18n.ENGLISH)
    if isinstance(reason, str) and f"{key}.{given.get('why')}" in english:
        key = f"{key}.{given['why']}"  # the finer sentence a `why` param names
    if isinstance(reason, str) and key in english:
        return t(key, **{k: _shown_param(v) for k, v in given.items()})
    return str(reply.get("message", ""))


ARGPARSE: dict[str, str] = {
    "usage: ": "argparse.usage",
    "options": "argparse.options",
    "positional arguments": "argparse.positional",
    "show this help message and exit": "argparse.help",
    "the following arguments are required: %s": "argparse.required",
    "unrecognized arguments: %s": "argparse.unrecognized",
    "invalid choice: %(value)r (choose from %(choices)s)": "argparse.invalid_choice",
    "invalid %(type)s value: %(value)r": "argparse.invalid_value",
    "argument %(argument_name)s: %(message)s": "argparse.argument",
    "expected one argument": "argparse.expected_one",
    "not allowed with argument %s": "argparse.not_allowed_with",
    "one of the arguments %s is required": "argparse.one_required",
    "ambiguous option: %(option)s could match %(matches)s": "argparse.ambiguous",
}
"""argparse's own words (it looks each up through its module's `_`) and their keys."""


def _argparse_words(text: str) -> str:
    key = ARGPARSE.get(text)
    if key is None or key not in i18n.catalogue(i18n.ENGLISH):
        return text  # argparse's own English, its %-placeholders intact
    return t(key)


def install_argparse() -> None:
    """Make argparse say its own words ("usage:", "options", its errors) in the chosen
    language (argparse asks its module-level `_`, gettext's, for each)."""
    argparse._ = _argparse_words  # type: ignore[attr-defined]


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr (and exit status 2), pointing
    at the help in the chosen language; both command lines build their parsers of it."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} ({t('cli.see_help', prog=self.prog)})\n")


class Texts(Mapping[str, str]):
    """A command's texts by short name, each `prefix.name` in the catalogue, read in the
    chosen language when looked up (`TEXTS["saved"].format(...)` as a dict of them)."""

    def __init__(self, prefix: str, names: Sequence[str]) -> None:
        self.prefix = prefix
        self.names = tuple(names)

    def __getitem__(self, name: str) -> str:
        if name not in self.names:
            raise KeyError(name)
        return t(f"{self.prefix}.{name}")

    def __iter__(self) -> Iterator[str]:
        return iter(self.names)

    def __len__(self) -> int:
        return len(self.names)
