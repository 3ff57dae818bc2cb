"""HTTP of schedules (PROTOCOL.md): `GET /schedules.json` (the `schedules` items) and
`GET /calendar.ics`, an iCalendar feed (RFC 5545) with one VEVENT per scheduled or open
tournament and per upcoming occurrence of every active schedule, created or not; and
`GET /tournaments/ID/calendar.ics`, one tournament's event ("add to calendar").

Each event says in words what it is, in the viewer's language (`?lang=`, else the
Accept-Language header; the catalogues' calendar.* keys), and carries an alarm (VALARM)
`?remind=N` minutes before the start (15 by default; 0: none).

A UID is stable: `samedeal-S-k@HOST` for occurrence k of schedule S (the same before
and after the occurrence is created), `samedeal-t-ID@HOST` for a tournament made by hand.

v1.4: neither the JSON nor the feed lists an unlisted event (PROTOCOL.md "Visibility and
entry codes"), nor carries an entry code; one tournament's event is reached by its id.
"""

from __future__ import annotations

import re
from datetime import datetime
from http import HTTPStatus
from typing import Any
from urllib.parse import parse_qs, urlsplit

import orjson
from websockets.http11 import Request, Response

from server import i18n
from server.competition.errors import CompetitionError
from server.competition.service import Competition
from server.domain import timing
from server.domain.club_events import ANONYMOUS, fields_of
from server.domain.model import TournamentStatus
from server.domain.organiser_words import game_words
from server.domain.tournament_options import span_text
from server.net.connection import WsConnection
from server.net.replies import schedule_item

CALENDAR = "text/calendar; charset=utf-8"
ONE = re.compile(r"^/tournaments/(\d{1,12})/calendar\.ics$")
REMIND_DEFAULT, REMIND_MAX = 15, 7 * 24 * 60  # minutes


class CalendarViewer:
    """Who reads the calendar: the language and the alarm's minutes (None: no alarm)."""

    def __init__(self, lang: str, remind: int | None) -> None:
        self.lang, self.remind = lang, remind

    def say(self, key: str, **params: object) -> str:
        return i18n.translate(self.lang, key, **params)


def viewer(request: Request) -> CalendarViewer | str:
    """The viewer the query and headers describe, or why the query is refused."""
    query = parse_qs(urlsplit(request.path).query)
    asked = query.get("lang", [])
    accepted = [
        part.split(";")[0].strip()
        for part in (request.headers.get("Accept-Language") or "").split(",")
        if part.strip()
    ]
    lang = i18n.negotiate([*asked, *accepted])
    text = (query.get("remind") or [str(REMIND_DEFAULT)])[0]
    if not text.isdigit() or int(text) > REMIND_MAX:
        return f"remind is a number of minutes from 0 to {REMIND_MAX}, not {text[:20]!r}\n"
    return CalendarViewer(lang, int(text) or None)


async def respond(
    competition: Competition, conn: WsConnection, path: str, request: Request
) -> Response | None:
    """The answer for /schedules.json or a calendar; None for any other path."""
    if path == "/schedules.json":
        schedules = competition.schedules
        listed = [s for s in await schedules.all() if ANONYMOUS.lists(fields_of(s))]
        items = [schedule_item(s) for s in await schedules.listing(listed)]
        body = orjson.dumps({"items": items}).decode()
        return _typed(conn.respond(HTTPStatus.OK, body), "application/json")
    one = ONE.match(path)
    if path != "/calendar.ics" and one is None:
        return None
    who = viewer(request)
    if isinstance(who, str):
        return conn.respond(HTTPStatus.BAD_REQUEST, who)
    host = (request.headers.get("Host") or "samedeal").rsplit(":", 1)[0] or "samedeal"
    if one is None:
        return _typed(conn.respond(HTTPStatus.OK, await calendar(competition, host, who)), CALENDAR)
    try:
        t = await competition.catalogue.find(int(one.group(1)))
    except CompetitionError as exc:
        return conn.respond(HTTPStatus.NOT_FOUND, exc.message + "\n")
    uid = _uid(host, t.schedule_id, t.occurrence, t.id)
    event = _event(uid, t.name, t.starts_at, t.ends_at, t.created_at, _about(t, who), who)
    body = _wrap(who, event, t.name)
    response = _typed(conn.respond(HTTPStatus.OK, body), CALENDAR)
    response.headers["Content-Disposition"] = f'inline; filename="tournament-{t.id}.ics"'
    return response


async def calendar(competition: Competition, host: str, who: CalendarViewer | None = None) -> str:
    """The feed's text (CRLF line ends, long lines folded)."""
    who = who or CalendarViewer(i18n.ENGLISH, REMIND_DEFAULT)
    events: dict[str, list[str]] = {}
    for t in await competition.catalogue.summaries():
        if t.status == TournamentStatus.CLOSED or not ANONYMOUS.lists(fields_of(t)):
            continue
        uid = _uid(host, t.schedule_id, t.occurrence, t.id)
        events[uid] = _event(uid, t.name, t.starts_at, t.ends_at, t.created_at, _about(t, who), who)
    schedules = competition.schedules
    items = [s for s in await schedules.all() if not s.cancelled and ANONYMOUS.lists(fields_of(s))]
    upcoming = await schedules.upcoming(items)
    for s in items:
        for o, tid in upcoming[s.id]:
            uid = _uid(host, s.id, o.k, tid)
            if uid not in events and tid is None:
                about = who.say(
                    "calendar.occurrence",
                    game=game_words(who.lang, s.game, s.options),
                    every=span_text(s.every_s),
                )
                if s.time_limit_s:
                    about += " " + who.say("calendar.per_game", span=span_text(s.time_limit_s))
                if s.beacon is not None:
                    about += " " + who.say("calendar.beacon", network=s.beacon["network"])
                events[uid] = _event(uid, o.name, o.starts_at, o.ends_at, s.created_at, about, who)
    return _wrap(who, [line for uid in sorted(events) for line in events[uid]], None)


def _wrap(who: CalendarViewer, events: list[str], name: str | None) -> str:
    """The VCALENDAR around `events` (`name`: one tournament's, else the feed's)."""
    lines = [
        "BEGIN:VCALENDAR",
        "VERSION:2.0",
        "PRODID:-//samedeal//series//EN",
        "CALSCALE:GREGORIAN",
        f"X-WR-CALNAME:{_text(name or who.say('calendar.name'))}",
        *events,
        "END:VCALENDAR",
    ]
    return "".join(_fold(line) + "\r\n" for line in lines)


def _about(t: Any, who: CalendarViewer) -> str:
    """A tournament in words: its game, the time limit, the commitment, a beacon."""
    about = who.say(
        "calendar.tournament",
        game=game_words(who.lang, t.game, t.options),
        commitment=t.commitment,
    )
    if t.time_limit_s:
        about += " " + who.say("calendar.per_game", span=span_text(t.time_limit_s))
    if t.beacon is not None:  # its round is known once the tournament exists: say it
        about += " " + who.say(
            "calendar.beacon_round", network=t.beacon["network"], round=t.beacon["round"]
        )
    return about


def _uid(host: str, schedule_id: int | None, k: int | None, tid: int | None) -> str:
    if schedule_id is not None and k is not None:
        return f"samedeal-{schedule_id}-{k}@{host}"
    return f"samedeal-t-{tid}@{host}"


def _event(
    uid: str,
    name: str,
    starts: datetime,
    ends: datetime,
    stamp: datetime,
    about: str,
    who: CalendarViewer,
) -> list[str]:
    alarm = []
    if who.remind is not None:
        said = i18n.translate_plural(who.lang, "calendar.alarm", who.remind, name=name)
        alarm = [
            "BEGIN:VALARM",
            "ACTION:DISPLAY",
            f"DESCRIPTION:{_text(said)}",
            f"TRIGGER:-PT{who.remind}M",
            "END:VALARM",
        ]
    return [
        "BEGIN:VEVENT",
        f"UID:{_text(uid)}",
        f"DTSTAMP:{_when(stamp)}",
        f"DTSTART:{_when(starts)}",
        f"DTEND:{_when(ends)}",
        f"SUMMARY:{_text(name)}",
        f"DESCRIPTION:{_text(about)}",
        *alarm,
        "END:VEVENT",
    ]


def _when(at: datetime) -> str:
    return timing.iso(at)[:19].replace("-", "").replace(":", "") + "Z"


def _text(value: str) -> str:
    """An iCalendar TEXT value: backslash, semicolon, comma and newlines escaped."""
    return (
        value.replace("\\", "\\\\")
        .replace(";", "\\;")
        .replace(",", "\\,")
        .replace("\r\n", "\\n")
        .replace("\n", "\\n")
        .replace("\r", "\\n")
    )


def _fold(line: str) -> str:
    """Lines of at most 75 octets, continued after CRLF and a space (never inside a
    UTF-8 sequence)."""
    out, current, size = [], "", 0
    for ch in line:
        n = len(ch.encode())
        if size + n > 75:
            out.append(current)
            current, size = " ", 1
        current += ch
        size += n
    out.append(current)
    return "\r\n".join(out)


def _typed(response: Response, kind: str) -> Response:
    """The response with `kind` as its only Content-Type (headers are a multidict)."""
    del response.headers["Content-Type"]
    response.headers["Content-Type"] = kind
    return response
