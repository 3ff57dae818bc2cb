"""A command line's language (server/i18n/terminal.py): chosen once from `--lang` or the
environment, texts and plurals from the catalogues, times in local words, the server's
error replies said from their `reason`, and argparse's own words translated."""

from __future__ import annotations

import argparse
import time
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from server.i18n import terminal
from server.i18n.said import said

MOMENT = datetime(2025, 1, 7, 14, 5, 9, tzinfo=UTC)  # a Tuesday, never today


@pytest.fixture(autouse=True)
def english_in_utc(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Local time is UTC here; English again after each test."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    terminal.choose("en")
    monkeypatch.undo()
    time.tzset()


def test_the_option_wins_over_the_environment_in_its_order() -> None:
    env = {"LC_ALL": "", "LC_MESSAGES": "es_ES.UTF-8", "LANG": "pt_BR.UTF-8"}
    assert terminal.choose(None, env) == "es" and terminal.lang() == "es"
    assert terminal.choose("pt-PT", env) == "pt-PT" and terminal.lang() == "pt-PT"
    assert terminal.choose(None, {"LANG": "pt_BR.UTF-8"}) == "pt-BR"
    assert terminal.choose(None, {}) == "en"
    assert terminal.choose("fr", env) == "en"  # an unsupported choice: English


def test_the_lang_option_is_found_before_the_parser_and_not_past_a_double_dash() -> None:
    assert terminal.option_in(["play", "--lang", "es", "3"]) == "es"
    assert terminal.option_in(["--lang=pt-BR", "play"]) == "pt-BR"
    assert terminal.option_in(["play", "--", "--lang", "es"]) is None
    assert terminal.option_in(["play", "--lang"]) is None  # no value after it
    assert terminal.option_in([]) is None


def test_texts_plurals_and_cards_in_the_chosen_language() -> None:
    assert terminal.card("6H") == "six of hearts"
    assert terminal.tn("cli.unit.days", 1) == "1 day"
    terminal.choose("es")
    assert terminal.card("6H") == "seis de corazones"
    assert terminal.t("argparse.usage") == "uso: "
    assert terminal.tn("cli.unit.days", 2) == "2 días"


def test_a_span_is_said_in_its_largest_whole_unit() -> None:
    assert terminal.span(86400) == "1 day"
    assert terminal.span(6 * 3600) == "6 hours"
    assert terminal.span(120) == "2 minutes"
    assert terminal.span(90) == "90 seconds"
    assert terminal.span(0) == "0 seconds"
    terminal.choose("es")
    assert terminal.span(2 * 86400) == "2 días"


def test_a_moment_is_its_clock_today_else_its_day_too() -> None:
    assert terminal.local(MOMENT) == "Tue 7 Jan 14:05"
    assert terminal.local(MOMENT, seconds=True) == "Tue 7 Jan 14:05:09"
    assert terminal.local(MOMENT.isoformat()) == "Tue 7 Jan 14:05"  # an ISO text too
    now = datetime.now(UTC).replace(microsecond=0)
    assert terminal.local(now) == now.strftime("%H:%M")
    assert terminal.local(now, today=False).endswith(now.strftime("%b %H:%M"))
    terminal.choose("es")
    assert terminal.local(MOMENT) == "mar, 7 ene 14:05"
    assert terminal.local(MOMENT, seconds=True) == "mar, 7 ene 14:05:09"


def test_an_error_reply_is_said_from_its_reason_with_local_times() -> None:
    opens = {
        "reason": "not_open_yet",
        "params": {"id": 3, "at": MOMENT.isoformat()},
        "message": "Tournament 3 opens at 2025-01-07T14:05:09Z.",
    }
    assert terminal.error_text(opens) == opens["message"]  # English: the server's own words
    terminal.choose("es")
    assert terminal.error_text(opens) == "El torneo 3 se abre el mar, 7 ene 14:05."
    finer = {"reason": "bad_name", "params": {"why": "length", "length": 40, "max": 32}}
    assert terminal.error_text(finer) == "Un nombre tiene de 1 a 32 caracteres; este tiene 40."
    unknown = {"reason": "from_a_newer_server", "params": {}, "message": "as it was"}
    assert terminal.error_text(unknown) == "as it was"
    assert terminal.error_text({"params": "not a dict", "message": "m"}) == "m"


def test_an_exception_is_said_in_the_language_when_made_as_a_said() -> None:
    made = ValueError(said("reason.no_tournament", id=4))
    plain = ValueError("plain words")
    assert terminal.said_error(made) == "There is no tournament 4."
    terminal.choose("es")
    assert terminal.said_error(made) == "No existe el torneo 4."
    assert terminal.said_error(plain) == "plain words"
    assert terminal.said_error(ValueError("two", "args")) == "('two', 'args')"


def test_argparse_says_its_own_words_in_the_language(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(argparse, "_", argparse._)  # type: ignore[attr-defined]  # restored
    terminal.choose("es")
    terminal.install_argparse()
    parser = argparse.ArgumentParser(prog="samedeal")
    parser.add_argument("tournament")
    shown = parser.format_help()
    assert shown.startswith("uso: samedeal [-h] tournament")
    assert "opciones:" in shown and "mostrar esta ayuda y salir" in shown
    assert argparse._("not one of argparse's") == "not one of argparse's"  # type: ignore[attr-defined]


def test_texts_are_read_in_the_language_when_looked_up() -> None:
    texts = terminal.Texts("argparse", ["usage", "options"])
    assert list(texts) == ["usage", "options"] and len(texts) == 2
    assert texts["options"] == "options"
    terminal.choose("es")
    assert texts["options"] == "opciones"  # the same mapping, read again
    with pytest.raises(KeyError):
        texts["help"]  # in the catalogue, but not one of its names
