"""A tournament and a schedule in words, for people, in their language: what both command
lines print by default (`--json` gives the protocol's objects to scripts) and what the
calendar's events say. Pure: protocol-shaped dicts (SUMMARY, SCHEDULE) in, text out,
through the catalogues (`organiser.*` keys); times in the local zone (the process's TZ)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from server.domain.tournament_options import span_text
from server.i18n import translate, translate_plural, when_pattern

VARIANTS = ("montana", "addiction", "free_parking")


def game_words(lang: str, game: str, options: dict[str, Any] | None) -> str:
    """The game and the options a player cares about: "Gaps · Montana, 2 redeals",
    "Klondike, draw 3"."""
    options = options or {}
    words = translate(lang, f"organiser.game.{game}") if game in ("gaps", "klondike") else game
    if game == "gaps":
        if options.get("variant") in VARIANTS:
            words += " · " + translate(lang, f"organiser.variant.{options['variant']}")
        if isinstance(options.get("redeals"), int):
            words += ", " + translate_plural(lang, "unit.redeals", options["redeals"])
    elif game == "klondike" and isinstance(options.get("draw"), int):
        words += ", " + translate(lang, "organiser.klondike.draw", n=options["draw"])
    return words


def local_time(lang: str, moment: datetime | str) -> str:
    """A time as people read it here: the local zone, the language's words, the zone's
    name ("Wed, Dec 2, 2026 18:00 -03")."""
    at = (
        datetime.fromisoformat(moment.replace("Z", "+00:00")) if isinstance(moment, str) else moment
    )
    local = at.astimezone()
    return f"{when_pattern(lang, local, 'yMMMEd')} {local:%H:%M} {local:%Z}"


def tournament_line(lang: str, t: dict[str, Any]) -> str:
    """One tournament SUMMARY in a line: id, name, game, status, when, the time limit and
    join cutoff if any, unrated, its club event's words, and its commitment (the seed once
    revealed)."""
    parts = [
        translate(
            lang,
            "organiser.tournament.line",
            id=t["id"],
            name=t["name"],
            game=game_words(lang, t["game"], t.get("options")),
            status=translate(lang, f"organiser.status.{t['status']}"),
            start=local_time(lang, t["starts_at"]),
            end=local_time(lang, t["ends_at"]),
        )
    ]
    if t.get("time_limit_s"):
        parts.append(translate(lang, "organiser.per_game", span=span_text(t["time_limit_s"])))
    if t.get("join_until") and t["join_until"] != t.get("ends_at"):
        parts.append(
            translate(lang, "organiser.entries_until", when=local_time(lang, t["join_until"]))
        )
    if t.get("rated") is False:
        parts.append(translate(lang, "organiser.unrated"))
    parts += event_words(lang, t)
    parts.append(translate(lang, "organiser.commitment", commitment=t["commitment"]))
    if t.get("seed"):
        parts.append(translate(lang, "organiser.seed", seed=t["seed"]))
    return " · ".join(parts)


def event_words(lang: str, t: dict[str, Any]) -> list[str]:
    """A club event's words (v1.4; a SUMMARY or SCHEDULE): its club or battle, unlisted,
    its entry code (to its creator) or that one is required."""
    words = []
    if t.get("club") is not None:
        words.append(translate(lang, "organiser.club", id=t["club"]))
    if t.get("battle"):
        clubs = ", ".join(str(c) for c in t["battle"].get("clubs", ()))
        counted = t["battle"].get("counted")
        words.append(translate(lang, "organiser.battle", clubs=clubs, counted=counted))
    if t.get("visibility") == "unlisted":
        words.append(translate(lang, "organiser.unlisted"))
    if t.get("entry_code"):
        words.append(translate(lang, "organiser.entry_code", code=t["entry_code"]))
    elif t.get("code_required"):
        words.append(translate(lang, "organiser.code_required"))
    return words


def schedule_lines(lang: str, s: dict[str, Any]) -> list[str]:
    """A SCHEDULE object: its line ("every 1d, 1h each"), then one per next occurrence."""
    extra = []
    if s.get("time_limit_s"):
        extra.append(translate(lang, "organiser.per_game", span=span_text(s["time_limit_s"])))
    if s.get("beacon"):
        extra.append(translate(lang, "organiser.beacon", network=s["beacon"]["network"]))
    extra += event_words(lang, s)
    if s.get("cancelled"):
        extra.append(translate(lang, "organiser.schedule.cancelled"))
    head = translate(
        lang,
        "organiser.schedule.line",
        id=s["id"],
        name=s["name"],
        game=game_words(lang, s["game"], s.get("options")),
        every=span_text(s["every_s"]),
        duration=span_text(s["duration_s"]),
    )
    lines = [" · ".join([head, *extra])]
    for o in s.get("next", []):
        when = local_time(lang, o["starts_at"])
        if "commitment" in o:
            line = translate(
                lang,
                "organiser.schedule.next",
                name=o["name"],
                when=when,
                status=translate(lang, f"organiser.status.{o['status']}"),
                commitment=o["commitment"],
            )
            if o.get("beacon") and o["beacon"].get("round") is not None:
                line += " · " + translate(lang, "organiser.round", round=o["beacon"]["round"])
        else:
            line = translate(lang, "organiser.schedule.unpublished", name=o["name"], when=when)
        lines.append("  " + line)
    return lines
