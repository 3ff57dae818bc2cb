"""The language catalogues (server/i18n, docs/I18N.md): every key in every language, the same
placeholders, none empty, two plural forms chosen by CLDR, files sorted by key; the
pseudo-language; the browser's `GET /i18n/<lang>.json` with its ETag."""

from __future__ import annotations

import asyncio
import json
import urllib.request
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from server import i18n
from tests.support.harness import running_server

CATALOGUES = Path(i18n.__file__).parent / "catalogues"
PLURAL_FORMS = {
    "en": "nplurals=2; plural=(n != 1);",
    "pt-BR": "nplurals=2; plural=(n > 1);",
    "pt-PT": "nplurals=2; plural=(n != 1);",
    "es": "nplurals=2; plural=(n != 1);",
}


def test_every_key_is_in_every_language_with_the_same_placeholders() -> None:
    english = i18n.catalogue("en")
    assert len(english) > 100
    for lang in i18n.languages():
        found = i18n.catalogue(lang)
        assert set(found) == set(english), (lang, set(found) ^ set(english))
        for key, text in found.items():
            en = english[key]
            assert isinstance(text, tuple) == isinstance(en, tuple), (lang, key)
            forms = text if isinstance(text, tuple) else (text,)
            en_forms = en if isinstance(en, tuple) else (en,)
            want = i18n.placeholders(en_forms[-1])
            for form in forms:
                assert form.strip(), (lang, key)
                assert i18n.placeholders(form) <= want | {"n"}, (lang, key, form)
            assert i18n.placeholders(forms[-1]) == want, (lang, key, forms[-1])


def test_files_are_sorted_with_two_plural_forms_and_their_header() -> None:
    for lang, name in i18n.FILES.items():
        with (CATALOGUES / name).open("rb") as f:
            po = read_po(f)
        assert po.num_plurals == 2, lang
        assert po.mime_headers and dict(po.mime_headers)["Plural-Forms"] == PLURAL_FORMS[lang]
        keys = [m.id[0] if isinstance(m.id, tuple) else m.id for m in po if m.id]
        assert keys == sorted(keys), lang
        assert len(keys) == len(set(keys)), lang
        for m in po:
            if isinstance(m.id, tuple):
                assert len(m.string) == 2 and all(m.string), (lang, m.id)


def test_plurals_follow_each_countrys_rule() -> None:
    key = next(k for k, v in i18n.catalogue("en").items() if isinstance(v, tuple))
    one, other = i18n.catalogue("pt-BR")[key]
    assert i18n.translate_plural("pt-BR", key, 0) == one.replace("{n}", "0")
    assert i18n.translate_plural("pt-BR", key, 2) == other.replace("{n}", "2")
    one, other = i18n.catalogue("pt-PT")[key]
    assert i18n.translate_plural("pt-PT", key, 0) == other.replace("{n}", "0")
    assert i18n.translate_plural("pt-PT", key, 1) == one.replace("{n}", "1")
    assert [i18n.plural_index("es", n) for n in (0, 1, 2, 1_000_000)] == [1, 0, 1, 1]
    assert [i18n.plural_index("en", n) for n in (0, 1, 2)] == [1, 0, 1]


def test_fallbacks_and_cards_whole() -> None:
    assert i18n.translate("es", "card.AS") == "as de picas"
    assert i18n.translate("pt-BR", "card.6H") == "seis de copas"
    assert i18n.translate("xx", "card.6H") == "six of hearts"  # no catalogue: English
    assert i18n.translate("es", "no.such.key") == "no.such.key"
    assert i18n.translate("en", "card.6H", unused=1) == "six of hearts"


def test_negotiation_and_environment() -> None:
    assert i18n.negotiate(["fr-FR", "pt"]) == "pt-BR"
    assert i18n.negotiate(["pt-PT", "es"]) == "pt-PT"
    assert i18n.negotiate(["es-MX"]) == "es"
    assert i18n.negotiate(["de"]) == "en"
    assert i18n.negotiate(["en-XA"]) == "en-XA"
    env = {"LC_ALL": "", "LC_MESSAGES": "pt_PT.UTF-8", "LANG": "es_ES.UTF-8"}
    assert i18n.from_environment(None, env) == "pt-PT"
    assert i18n.from_environment("es", env) == "es"
    assert i18n.from_environment(None, {"LANG": "pt_BR.UTF-8"}) == "pt-BR"
    assert i18n.from_environment(None, {"LANG": "C.UTF-8"}) == "en"
    assert i18n.from_environment(None, {}) == "en"


def test_pseudo_language_brackets_and_accents_keeping_placeholders() -> None:
    for key, text in i18n.catalogue("en").items():
        pseudo = i18n.catalogue(i18n.PSEUDO)[key]
        forms = pseudo if isinstance(pseudo, tuple) else (pseudo,)
        en_forms = text if isinstance(text, tuple) else (text,)
        for form, en in zip(forms, en_forms, strict=True):
            assert form.startswith("[") and form.endswith("]"), key
            assert i18n.placeholders(form) == i18n.placeholders(en), key
    assert i18n.translate(i18n.PSEUDO, "card.6H") == "[šîx öf ĥéåŕţš]"


@pytest.mark.parametrize("lang", ["es"])
async def test_served_on_the_servers_port(sqlite_url: str, lang: str) -> None:
    async with running_server(sqlite_url) as srv:

        def get(headers: dict[str, str]) -> tuple[int, bytes, str]:
            request = urllib.request.Request(f"{srv.http}/i18n/{lang}.json", headers=headers)
            try:
                with urllib.request.urlopen(request, timeout=30) as r:
                    return r.status, r.read(), r.headers["ETag"]
            except urllib.error.HTTPError as e:
                return e.code, b"", e.headers["ETag"]

        status, body, etag = await asyncio.to_thread(get, {})
        assert status == 200 and json.loads(body)["messages"]["card.AS"] == "as de picas"
        status, body, _ = await asyncio.to_thread(get, {"If-None-Match": etag})
        assert status == 304 and body == b""


def test_every_key_the_python_side_names_is_in_english() -> None:
    """A key the code names but English lacks would show as the key itself."""
    import re

    root = CATALOGUES.parents[2]
    english = i18n.catalogue("en")
    named: set[str] = set()
    pattern = re.compile(
        r'\b(?:t|tn|translate|translate_plural|said)\(\s*(?:[a-z_.\[\]0-9]+,\s*)?"'
        r'([a-z][a-zA-Z0-9_.\-]+)"'
    )
    for folder in ("server", "client_cli"):
        for path in (root / folder).rglob("*.py"):
            named |= set(pattern.findall(path.read_text()))
    named |= {
        f"cli.login.{n}" for n in __import__("client_cli.commands.login", fromlist=["TEXTS"]).TEXTS
    }
    assert len(named) > 150
    missing = sorted(k for k in named if k not in english)
    assert not missing, missing
    families = {
        "cli.status.": (
            "scheduled",
            "open",
            "closed",
            "playing",
            "won",
            "lost",
            "resigned",
            "timed_out",
        ),
        "cli.end.": ("won", "lost", "resigned", "timed_out"),
        "cli.variant_rule.": ("montana", "addiction", "free_parking"),
        "cli.play.help.": ("gaps", "klondike"),
        "cli.describe.": ("draw", "auto"),
        "cli.unit.": ("days", "hours", "minutes", "seconds"),
        "card.": tuple(r + s for s in "CDHS" for r in "A23456789TJQK"),
        "audit.status.": ("won", "lost", "resigned", "timed_out"),
    }
    for prefix, names in families.items():
        assert not [n for n in names if prefix + n not in english], prefix
