"""HTTP of schedules (PROTOCOL v1.3): `GET /schedules.json` (the `schedules` items) and
`GET /calendar.ics`, an iCalendar feed (RFC 5545) with one VEVENT per scheduled or open
tournament and per upcoming occurrence of every active schedule, created or not.

A UID is stable: `samedeal-S-k@HOST` for occurrence k of schedule S (the same before
and after the occurrence is created), `samedeal-t-ID@HOST` for a tournament made by hand.
"""

from __future__ import annotations

from datetime import datetime
from http import HTTPStatus
from typing import Any

import orjson
from websockets.http11 import Request, Response

from server.competition.service import Competition
from server.domain import timing
from server.domain.model import TournamentStatus
from server.net.connection import WsConnection
from server.net.replies import schedule_item

CALENDAR = "text/calendar; charset=utf-8"


async def respond(
    competition: Competition, conn: WsConnection, path: str, request: Request
) -> Response | None:
    """The answer for /schedules.json or /calendar.ics; None for any other path."""
    if path == "/schedules.json":
        items = [schedule_item(s) for s in await competition.series.listing()]
        body = orjson.dumps({"items": items}).decode()
        return _typed(conn.respond(HTTPStatus.OK, body), "application/json")
    if path == "/calendar.ics":
        host = (request.headers.get("Host") or "samedeal").rsplit(":", 1)[0] or "samedeal"
        return _typed(conn.respond(HTTPStatus.OK, await calendar(competition, host)), CALENDAR)
    return None


async def calendar(competition: Competition, host: str) -> str:
    """The feed's text (CRLF line ends, long lines folded)."""
    events: dict[str, list[str]] = {}
    for t in await competition.catalogue.summaries():
        if t.status == TournamentStatus.CLOSED:
            continue
        uid = _uid(host, t.schedule_id, t.occurrence, t.id)
        events[uid] = _event(uid, t.name, t.starts_at, t.ends_at, t.created_at, _about(t))
    schedules = competition.series
    items = [s for s in await schedules.all() if not s.cancelled]
    upcoming = await schedules.upcoming(items)
    for s in items:
        for o, tid in upcoming[s.id]:
            uid = _uid(host, s.id, o.k, tid)
            if uid not in events and tid is None:
                about = f"{s.game}, every {s.every_s} s; commitment published a period ahead"
                if s.beacon is not None:
                    about += f"; deal from a {s.beacon['network']} beacon round"
                events[uid] = _event(uid, o.name, o.starts_at, o.ends_at, s.created_at, about)
    lines = [
        "BEGIN:VCALENDAR",
        "VERSION:2.0",
        "PRODID:-//samedeal//series//EN",
        "CALSCALE:GREGORIAN",
        "X-WR-CALNAME:samedeal tournaments",
    ]
    for uid in sorted(events):
        lines += events[uid]
    lines.append("END:VCALENDAR")
    return "".join(_fold(line) + "\r\n" for line in lines)


def _about(t: Any) -> str:
    about = f"{t.game} {t.options}; commitment {t.commitment}; status {t.status}"
    if t.beacon is not None:
        about += f"; beacon {t.beacon['network']} round {t.beacon['round']}"
    return about


def _uid(host: str, schedule_id: int | None, k: int | None, tid: int | None) -> str:
    if schedule_id is not None and k is not None:
        return f"samedeal-{schedule_id}-{k}@{host}"
    return f"samedeal-t-{tid}@{host}"


def _event(
    uid: str, name: str, starts: datetime, ends: datetime, stamp: datetime, about: str
) -> list[str]:
    return [
        "BEGIN:VEVENT",
        f"UID:{_text(uid)}",
        f"DTSTAMP:{_when(stamp)}",
        f"DTSTART:{_when(starts)}",
        f"DTEND:{_when(ends)}",
        f"SUMMARY:{_text(name)}",
        f"DESCRIPTION:{_text(about)}",
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
    response.headers["Content-Type"] = kind
    return response
