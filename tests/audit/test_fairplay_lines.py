"""The fair-play report's one writer (server/audit/fairplay_lines.py, issues 34 and 37):
both command lines print its lines, English as before and every finding's kind, why and
count said in the operator's language; JSON for programs adds no words."""

from __future__ import annotations

import json
from datetime import timedelta

from client_cli.commands import fairplay as players_command
from server.audit.fairplay import findings
from server.audit.fairplay_lines import disqualified_line, report_lines
from server.cli import fairplay as operators_command
from tests.audit.test_fairplay import JOIN, game, moves

FOUND = findings(
    [
        game("twin_a", actions=moves(30)),
        game("twin_b", actions=moves(30)),
        game("quick", at_ms=[100 * (i + 1) for i in range(40)]),  # fast and even
        game("robo", bot=True),
        game("fresh", created=JOIN - timedelta(seconds=125)),
    ]
)
WIRE = [json.loads(json.dumps(f.as_dict())) for f in FOUND]  # as the protocol carries them


def test_both_command_lines_use_the_one_writer() -> None:
    assert players_command.report_lines is operators_command.report_lines is report_lines
    assert not hasattr(players_command, "write_findings")


def test_english_lines_are_the_findings_own() -> None:
    assert {f.kind for f in FOUND} == {"same_opening", "fast", "even", "bot", "new_account"}
    lines = report_lines("en", WIRE, as_json=False)
    assert lines == [f.line() for f in FOUND] + [
        f"{len(FOUND)} findings (pointers for the organiser, not verdicts)"
    ]
    assert report_lines("en", WIRE, as_json=True) == [json.dumps(w) for w in WIRE]
    assert disqualified_line("en", 3, "fresh", False) == "tournament 3: fresh disqualified"


def test_every_finding_is_said_in_the_language() -> None:
    said = {
        "pt-BR": ("mesma abertura", "cadastrado como robô", "indícios (pistas"),
        "pt-PT": ("mesma abertura", "registado como robô", "indícios (pistas"),
        "es": ("misma apertura", "registrado como bot", "indicios (pistas"),
    }
    english = [f.line().split(": ", 1)[1] for f in FOUND]
    for lang, words in said.items():
        lines = report_lines(lang, WIRE, as_json=False)
        text = "\n".join(lines)
        assert all(w in text for w in words), (lang, text)
        for line, why in zip(lines, english, strict=False):
            assert why not in line, (lang, line)  # no English sentence left
        assert "findings" not in lines[-1] and "verdicts" not in lines[-1]
        assert "2 min 5 s" in text  # the figures kept
        assert disqualified_line(lang, 3, "fresh", True) != disqualified_line(
            "en", 3, "fresh", True
        )
    one = report_lines("pt-PT", WIRE[:1], as_json=False)[-1]
    assert one.startswith("1 indício (uma pista")
