"""A `Said` (server/i18n/said.py): English to whoever reads it as a str, said again in
another language with its key and params, its Said params too, and kept through a pickle."""

from __future__ import annotations

import pickle

from server.i18n import translate
from server.i18n.said import Said, said, speak


def test_a_said_is_its_english_and_says_itself_in_a_language() -> None:
    who = said("audit.who", name="'joão'", id=3)
    line = said("audit.record_no_receipts", who=who)
    assert isinstance(line, str) and line == (
        "record of 'joão' (player 3) carries no receipts: no log_hash (written before "
        "samedeal-log/1)"
    )
    assert speak("es", line).startswith("registro de 'joão' (jugador 3) no trae recibos")
    assert speak("pt-PT", "a plain str") == "a plain str"
    # a Said given to translate as a param is said in that call's language
    assert (
        translate("pt-BR", "cli.verify.ok_line", line=who) == "ok   registro de 'joão' (jogador 3)"
    )
    kept = pickle.loads(pickle.dumps(line))
    assert isinstance(kept, Said) and kept == line and speak("es", kept) == speak("es", line)
