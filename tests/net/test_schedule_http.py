"""The schedules' HTTP (server/net/schedule_http.py): `/schedules.json`, the calendar feed
`/calendar.ics` and one tournament's `/tournaments/ID/calendar.ics`. Issue 39, reminders:
every scheduled tournament has its own event and the feed carries every one; each event
has an alarm 15 minutes before its start (VALARM; `?remind=N`, 0: none) and says in words,
in the viewer's language (`?lang=`, else Accept-Language), what it is. Parsed by the
`icalendar` library; the first tests over a socket, the rest answered in-process."""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from datetime import timedelta
from typing import Any

import icalendar
import pytest

from server.net import schedule_http
from server.net.app import App
from tests.net.conftest import Wire, http_conn, request, signed_in
from tests.support.harness import T0, create_msg, running_server


@pytest.fixture
async def srv(sqlite_url):
    async with running_server(sqlite_url) as running:
        yield running


def fetch(url: str, language: str | None = None) -> tuple[int, str, bytes]:
    request = urllib.request.Request(url, headers={"Accept-Language": language} if language else {})
    try:
        with urllib.request.urlopen(request, timeout=30) as r:
            return r.status, r.headers.get("Content-Type", ""), r.read()
    except urllib.error.HTTPError as e:
        return e.code, "", e.read()


async def get(srv, path: str, language: str | None = None) -> tuple[int, str, bytes]:
    return await asyncio.to_thread(fetch, f"{srv.http}{path}", language)


async def scheduled(srv) -> dict:
    op = await srv.admin("op")
    msg = create_msg(
        name="Clube Gaps rápido",
        options={"redeals": 1, "variant": "montana"},
        starts_at=(T0 + timedelta(hours=2)).isoformat(),
        ends_at=(T0 + timedelta(hours=3)).isoformat(),
    )
    return (await op.ok(**msg))["tournament"]


async def test_a_tournament_has_its_own_event_with_an_alarm(srv) -> None:
    t = await scheduled(srv)
    status, kind, body = await get(srv, f"/tournaments/{t['id']}/calendar.ics")
    assert status == 200 and kind.startswith("text/calendar")
    cal = icalendar.Calendar.from_ical(body)
    [event] = cal.walk("VEVENT")
    assert str(event["SUMMARY"]) == "Clube Gaps rápido"
    assert event.decoded("DTSTART") == T0 + timedelta(hours=2)
    about = str(event["DESCRIPTION"])
    assert about.startswith("Gaps · Montana, 1 redeal. The deal is fixed before the start")
    assert t["commitment"] in about and "15m per game." in about
    assert "{" not in about and "'" not in about  # words, not an internal dump
    [alarm] = event.walk("VALARM")
    assert alarm.decoded("TRIGGER") == -timedelta(minutes=15)
    assert str(alarm["ACTION"]) == "DISPLAY"
    assert str(alarm["DESCRIPTION"]) == "Clube Gaps rápido starts in 15 minutes"
    # the same UID as in the feed: adding both makes one event
    _, _, feed = await get(srv, "/calendar.ics")
    uids = [str(e["UID"]) for e in icalendar.Calendar.from_ical(feed).walk("VEVENT")]
    assert str(event["UID"]) in uids


async def test_remind_and_language(srv) -> None:
    t = await scheduled(srv)
    path = f"/tournaments/{t['id']}/calendar.ics"
    _, _, body = await get(srv, path + "?remind=1&lang=pt-BR")
    [event] = icalendar.Calendar.from_ical(body).walk("VEVENT")
    [alarm] = event.walk("VALARM")
    assert alarm.decoded("TRIGGER") == -timedelta(minutes=1)
    assert str(alarm["DESCRIPTION"]) == "Clube Gaps rápido começa em 1 minuto"  # singular
    assert str(event["DESCRIPTION"]).startswith("Gaps · Montana, 1 redistribuição. ")
    _, _, body = await get(srv, path + "?remind=0", language="es-ES,es;q=0.9")
    [event] = icalendar.Calendar.from_ical(body).walk("VEVENT")
    assert event.walk("VALARM") == [] and "15m por partida." in str(event["DESCRIPTION"])
    _, _, feed = await get(srv, "/calendar.ics?lang=pt-PT&remind=30")
    cal = icalendar.Calendar.from_ical(feed)
    assert str(cal["X-WR-CALNAME"]) == "torneios samedeal"
    [event] = cal.walk("VEVENT")
    assert str(event.walk("VALARM")[0]["DESCRIPTION"]).endswith("começa dentro de 30 minutos")
    for bad in ("?remind=soon", "?remind=-5", "?remind=99999"):
        status, _, said = await get(srv, path + bad)
        assert status == 400 and b"remind is a number of minutes" in said
    status, _, _ = await get(srv, "/tournaments/999/calendar.ics")
    assert status == 404


# -- in-process -------------------------------------------------------------------------
def test_the_viewer_is_the_query_then_accept_language_and_the_alarms_minutes() -> None:
    asked = schedule_http.viewer(request("/calendar.ics?lang=es", Accept_Language="pt-BR"))
    assert not isinstance(asked, str)
    assert (asked.lang, asked.remind) == ("es", 15)
    accepted = schedule_http.viewer(request("/calendar.ics?remind=0", Accept_Language="pt-BR;q=1"))
    assert not isinstance(accepted, str)
    assert (accepted.lang, accepted.remind) == ("pt-BR", None)
    plain = schedule_http.viewer(request("/calendar.ics?remind=10080"))
    assert not isinstance(plain, str) and (plain.lang, plain.remind) == ("en", 10080)
    refused = schedule_http.viewer(request("/calendar.ics?remind=10081"))
    assert refused == "remind is a number of minutes from 0 to 10080, not '10081'\n"


def test_a_long_line_is_folded_at_75_octets_never_inside_a_character() -> None:
    line = "DESCRIPTION:" + "ção, " * 40
    folded = schedule_http._fold(line)
    parts = folded.split("\r\n")
    assert len(parts) > 1 and all(len(p.encode()) <= 75 for p in parts)
    assert all(p.startswith(" ") for p in parts[1:])
    assert "".join([parts[0], *(p[1:] for p in parts[1:])]) == line  # unfolded: the same
    assert schedule_http._fold("SHORT") == "SHORT"
    assert schedule_http._text("a;b,c\\d\ne\r\nf") == "a\\;b\\,c\\\\d\\ne\\nf"


async def answer(app: App, target: str, **headers: str) -> tuple[int, str, bytes]:
    conn = http_conn()
    path = target.split("?")[0]
    response = await schedule_http.respond(app.competition, conn, path, request(target, **headers))
    assert response is not None, target
    return response.status_code, response.headers.get("Content-Type", ""), bytes(response.body)


def events(body: bytes) -> dict[str, Any]:
    return {str(e["UID"]): e for e in icalendar.Calendar.from_ical(body).walk("VEVENT")}


async def test_the_feed_has_open_tournaments_and_upcoming_occurrences_not_unlisted_or_closed(
    app: App,
) -> None:
    op = await signed_in(app, "op", admin=True)
    kept = (await op.ok(**create_msg(name="Kept")))["tournament"]
    closed = (await op.ok(**create_msg(name="Closed")))["tournament"]
    await op.ok(type="close_tournament", tournament=closed["id"])
    await op.ok(**create_msg(name="Hidden", visibility="unlisted"))
    daily_schedule = (
        await op.ok(
            type="create_schedule",
            name="Daily",
            game="gaps",
            first_starts_at=(T0 + timedelta(hours=1)).isoformat(),
            every_s=86400,
            duration_s=3600,
        )
    )["schedule"]
    status, kind, body = await answer(app, "/calendar.ics", Host="play.example:8765")
    assert status == 200 and kind == "text/calendar; charset=utf-8"
    found = events(body)
    assert f"samedeal-t-{kept['id']}@play.example" in found
    daily = [uid for uid in found if uid.startswith(f"samedeal-{daily_schedule['id']}-")]
    assert daily and all(uid.endswith("@play.example") for uid in daily)
    names = {str(e["SUMMARY"]) for e in found.values()}
    assert "Kept" in names and "Closed" not in names and "Hidden" not in names
    made = found[f"samedeal-{daily_schedule['id']}-1@play.example"]  # created: the schedule's UID
    assert made.decoded("DTSTART") == T0 + timedelta(hours=1)
    assert "commitment" in str(made["DESCRIPTION"])  # a tournament: its commitment
    coming = found[f"samedeal-{daily_schedule['id']}-2@play.example"]
    assert coming.decoded("DTSTART") == T0 + timedelta(days=1, hours=1)
    assert "every 1d" in str(coming["DESCRIPTION"])  # not created yet: the schedule in words
    assert all(line.endswith(b"\r") for line in body.split(b"\n")[:-1])  # CRLF


async def test_schedules_json_and_one_tournaments_event(app: App) -> None:
    op = await signed_in(app, "op", admin=True)
    await op.ok(
        type="create_schedule",
        name="Daily",
        game="gaps",
        first_starts_at=(T0 + timedelta(hours=1)).isoformat(),
        every_s=86400,
        duration_s=3600,
    )
    status, kind, body = await answer(app, "/schedules.json")
    assert (status, kind) == (200, "application/json")
    [item] = json.loads(body)["items"]
    assert item["name"] == "Daily" and item["next"]
    t = (await op.ok(**create_msg(name="Sexta; à noite, 8h")))["tournament"]
    conn = http_conn()
    target = f"/tournaments/{t['id']}/calendar.ics?lang=es"
    response = await schedule_http.respond(
        app.competition, conn, target.split("?")[0], request(target)
    )
    assert response is not None and response.status_code == 200
    assert response.headers["Content-Disposition"] == (
        f'inline; filename="tournament-{t["id"]}.ics"'
    )
    [event] = events(bytes(response.body)).values()
    assert str(event["SUMMARY"]) == "Sexta; à noite, 8h"  # escaped, and read back whole
    assert b"SUMMARY:Sexta\\; \xc3\xa0 noite\\, 8h" in response.body
    assert str(event.walk("VALARM")[0]["DESCRIPTION"]).startswith("Sexta; à noite, 8h ")
    missing = await answer(app, "/tournaments/99/calendar.ics")
    assert missing[0] == 404
    bad = await answer(app, "/calendar.ics?remind=x")
    assert bad[0] == 400 and bad[2].startswith(b"remind is a number of minutes")
    assert await schedule_http.respond(app.competition, conn, "/other", request("/other")) is None
    assert (await Wire(app).ok(type="schedules"))["items"][0]["name"] == "Daily"  # the same
