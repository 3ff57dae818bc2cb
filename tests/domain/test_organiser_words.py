"""server/domain/organiser_words.py: a club event's SUMMARY and SCHEDULE in words say its
club or battle, unlisted, and its entry code (to its creator) or that one is required,
in every language, through the catalogues."""

from __future__ import annotations

from typing import Any

import pytest

from server.domain.organiser_words import schedule_lines, tournament_line

SUMMARY: dict[str, Any] = {
    "id": 7,
    "name": "Friday",
    "game": "gaps",
    "options": {},
    "status": "open",
    "starts_at": "2026-12-02T18:00:00Z",
    "ends_at": "2026-12-02T19:00:00Z",
    "join_until": "2026-12-02T19:00:00Z",
    "commitment": "ab12",
    "rated": False,
    "club": None,
    "battle": None,
    "visibility": "public",
    "code_required": False,
}
WORDS = {
    "en": ("club 3", "battle of clubs 3, 5, counting 2 per club", "unlisted", "entry code"),
    "pt-BR": ("clube 3", "batalha dos clubes 3, 5, contando 2 por clube", "não listado", "código"),
    "pt-PT": ("clube 3", "batalha dos clubes 3, 5, contando 2 por clube", "não listado", "código"),
    "es": ("club 3", "batalla de los clubes 3, 5, contando 2 por club", "no listado", "código"),
}


@pytest.mark.parametrize("lang", sorted(WORDS))
def test_a_club_events_words(lang: str) -> None:
    club, battle, unlisted, code = WORDS[lang]
    plain = tournament_line(lang, SUMMARY)
    assert all(w not in plain for w in (club, battle, unlisted, code))
    ours = {**SUMMARY, "club": 3, "visibility": "unlisted", "code_required": True}
    line = tournament_line(lang, ours)
    assert club in line and unlisted in line and code in line and "Fr-1_x" not in line
    assert "Fr-1_x" in tournament_line(lang, {**ours, "entry_code": "Fr-1_x"})  # its creator
    war = tournament_line(lang, {**SUMMARY, "battle": {"clubs": [3, 5], "counted": 2}})
    assert battle in war
    schedule = {
        "id": 2,
        "name": "Weekly",
        "game": "gaps",
        "options": {},
        "every_s": 604800,
        "duration_s": 3600,
        "club": 3,
        "visibility": "unlisted",
        "code_required": True,
        "next": [],
    }
    head = schedule_lines(lang, schedule)[0]
    assert club in head and unlisted in head and code in head
