"""The language catalogues (docs/I18N.md): one gettext PO file per language under
`catalogues/`, read at run time with Babel, the single source of every text a person reads
in the browser, the terminal client and both command lines.

A msgid is a stable dotted key (`cli.verify.ok`, `reason.gap_after_king`, `card.6H`); en.po
gives the English. Pure: no I/O beyond reading its own files, so the server's layers and
the terminal client both import it.

- `translate(lang, key, **params)`: the text with `{name}` placeholders filled; a key the
  language lacks falls back to English, one English lacks to the key itself.
- `translate_plural(lang, key, n, **params)`: form "one" or "other" by the CLDR plural rule
  of the language (pt-BR: 0 is "one"; pt-PT: 0 is "other"); `n` is a parameter too.
- `negotiate(requested)`: the first supported language among tags such as `pt-BR`,
  `es_ES.UTF-8`, `pt`; else English.
- `from_environment(option, environ)`: `--lang`, else LC_ALL, LC_MESSAGES, LANG.
- `en-XA`, the pseudo-language, is English bracketed and accented, made at load time.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable, Mapping
from datetime import datetime
from importlib import resources
from typing import Final

from babel import Locale
from babel.dates import format_datetime
from babel.messages.pofile import read_po

ENGLISH: Final = "en"
PSEUDO: Final = "en-XA"
LANGUAGES: Final = ("en", "pt-BR", "pt-PT", "es")
"""The languages with a catalogue, in the order a selector lists them."""
NAMES: Final = {
    "en": "English",
    "pt-BR": "Português (Brasil)",
    "pt-PT": "Português (Portugal)",
    "es": "Español",
    PSEUDO: "[Ƥšéûðô]",
}
FILES: Final = {"en": "en.po", "pt-BR": "pt_BR.po", "pt-PT": "pt_PT.po", "es": "es.po"}
BABEL: Final = {"en": "en", "pt-BR": "pt_BR", "pt-PT": "pt_PT", "es": "es", PSEUDO: "en"}
"""Each language's Babel (CLDR) locale: its plural rule, day and month names."""
ENVIRONMENT: Final = ("LC_ALL", "LC_MESSAGES", "LANG")

Text = str | tuple[str, str]
"""A message: its text, or its two plural forms (one, other)."""

_PLACEHOLDER = re.compile(r"\{[A-Za-z_][A-Za-z0-9_]*\}")


@functools.cache
def catalogue(lang: str) -> dict[str, Text]:
    """The language's messages by key, read once per process (`en-XA` made from `en`).
    A language without a catalogue has none (every key then falls back to English)."""
    if lang == PSEUDO:
        return {key: _pseudo_text(text) for key, text in catalogue(ENGLISH).items()}
    name = FILES.get(lang)
    if name is None:
        return {}
    with resources.files(__package__).joinpath("catalogues", name).open("rb") as f:
        po = read_po(f)
    found: dict[str, Text] = {}
    for m in po:
        if not m.id:
            continue  # the header
        if isinstance(m.id, (tuple, list)):
            forms = tuple(m.string) if isinstance(m.string, (tuple, list)) else (m.string,)
            found[str(m.id[0])] = (str(forms[0]), str(forms[-1]))
        else:
            found[str(m.id)] = str(m.string)
    return found


def languages() -> tuple[str, ...]:
    """The languages with a catalogue (the pseudo-language is not one of them)."""
    return LANGUAGES


def _message(lang: str, key: str) -> Text:
    found = catalogue(lang).get(key)
    if found:
        return found
    return catalogue(ENGLISH).get(key) or key


def _fill(text: str, params: Mapping[str, object], lang: str = ENGLISH) -> str:
    """`text` with its placeholders filled; a param that can say itself in a language (a
    `said.Said`, made before the language was known) is said in `lang`."""
    if not params:
        return text

    def value(m: re.Match[str]) -> str:
        found = params.get(m.group()[1:-1], m.group())
        in_language = getattr(found, "in_language", None)
        return str(found) if in_language is None else str(in_language(lang))

    return _PLACEHOLDER.sub(value, text)


def translate(lang: str, key: str, **params: object) -> str:
    """The message `key` in `lang` with its placeholders filled (a missing one stays)."""
    text = _message(lang, key)
    if isinstance(text, tuple):
        text = text[1]
    return _fill(text, params, lang)


def plural_index(lang: str, n: float) -> int:
    """0 ("one") or 1 (every other CLDR category) for `n` in `lang`."""
    return 0 if _locale(lang).plural_form(n) == "one" else 1


def translate_plural(lang: str, key: str, n: int, **params: object) -> str:
    """The plural message `key` in `lang`: the form CLDR's rule picks for `n`, with `{n}`
    and the other placeholders filled."""
    text = _message(lang, key)
    chosen = text[plural_index(lang, n)] if isinstance(text, tuple) else text
    return _fill(chosen, {"n": n, **params}, lang)


def negotiate(requested: Iterable[str]) -> str:
    """The first supported language among `requested` (BCP 47 tags or POSIX locale names),
    else English. `pt` alone is Brazilian; `C` and `POSIX` mean English."""
    for tag in requested:
        found = _match(tag)
        if found is not None:
            return found
    return ENGLISH


def _match(tag: str) -> str | None:
    plain = tag.split(".")[0].split("@")[0].replace("_", "-").strip().lower()
    if not plain:
        return None
    if plain in ("c", "posix"):
        return ENGLISH
    for lang in (*LANGUAGES, PSEUDO):
        if plain == lang.lower():
            return lang
    primary = plain.split("-")[0]
    return {"en": "en", "pt": "pt-BR", "es": "es"}.get(primary)


def from_environment(option: str | None, environ: Mapping[str, str]) -> str:
    """The language of a command line: `--lang`, else the first non-empty of LC_ALL,
    LC_MESSAGES, LANG, else English (an unsupported choice is English too)."""
    if option:
        return negotiate([option])
    for name in ENVIRONMENT:
        value = environ.get(name, "")
        if value:
            return negotiate([value])
    return ENGLISH


def locale_name(lang: str) -> str:
    """The Babel (CLDR) locale name of a language."""
    return BABEL.get(lang, "en")


@functools.cache
def _locale(lang: str) -> Locale:
    return Locale.parse(locale_name(lang))


def when(lang: str, moment: datetime, form: str = "medium") -> str:
    """`moment` (aware) as the language writes a date and time, in the zone `moment` is in
    (callers pass `moment.astimezone()` for the local one): "2 de dez. de 2026 00:00:00"."""
    return str(format_datetime(moment, form, tzinfo=moment.tzinfo, locale=_locale(lang)))


def when_pattern(lang: str, moment: datetime, skeleton: str) -> str:
    """`moment` by a CLDR skeleton such as "MMMEd" ("qua., 2 de dez.") or "Hm" ("00:00"), in
    the zone `moment` is in."""
    from babel.dates import format_skeleton

    return str(format_skeleton(skeleton, moment, tzinfo=moment.tzinfo, locale=_locale(lang)))


def day_and_time(lang: str, moment: datetime, seconds: bool = False) -> str:
    """The day and the time of `moment` as the language writes them: "qua., 2 de dez. 00:00"."""
    clock = when_pattern(lang, moment, "Hms" if seconds else "Hm")
    return f"{when_pattern(lang, moment, 'MMMEd')} {clock}"


# -- the pseudo-language ------------------------------------------------------------------
_ACCENTS = str.maketrans(
    "AaCcDdEeGgHhIiJjKkLlNnOoRrSsTtUuWwYyZz",
    "ÅåÇçÐðÉéĜĝĤĥÎîĴĵĶķĻļÑñÖöŔŕŠšŢţÛûŴŵÝýŽž",
)


def _pseudo(text: str) -> str:
    """English bracketed and accented, its placeholders kept: "[Ŝîĝñ îñ {name}]"."""
    pieces = _PLACEHOLDER.split(text)
    kept = _PLACEHOLDER.findall(text)
    out = [pieces[0].translate(_ACCENTS)]
    for name, piece in zip(kept, pieces[1:], strict=True):
        out += [name, piece.translate(_ACCENTS)]
    return "[" + "".join(out) + "]"


def _pseudo_text(text: Text) -> Text:
    if isinstance(text, tuple):
        return (_pseudo(text[0]), _pseudo(text[1]))
    return _pseudo(text)


def placeholders(text: str) -> frozenset[str]:
    """The names of `text`'s `{name}` placeholders."""
    return frozenset(m[1:-1] for m in _PLACEHOLDER.findall(text))


@functools.cache
def messages_json(lang: str) -> bytes:
    """What the browser loads (`GET /i18n/<lang>.json`): `{"lang", "messages": {key: text |
    [one, other]}}`, every English key present (the language's text where it has one)."""
    merged: dict[str, Text] = dict(catalogue(ENGLISH))
    merged.update({k: v for k, v in catalogue(lang).items() if v})
    messages = {k: list(v) if isinstance(v, tuple) else v for k, v in sorted(merged.items())}
    body = {"lang": lang, "plural": locale_name(lang).replace("_", "-"), "messages": messages}
    return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode()
