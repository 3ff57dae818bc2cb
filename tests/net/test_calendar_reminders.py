"""Issue 39, reminders: every scheduled tournament has its own event
(/tournaments/ID/calendar.ics) and the series feed (/calendar.ics) carries every one; each
event has an alarm 15 minutes before its start (VALARM; `?remind=N`, 0: none) and says in
words, in the viewer's language (`?lang=`, else Accept-Language), what it is. Parsed by
the `icalendar` library."""

from __future__ import annotations

import asyncio
import urllib.error
import urllib.request
from datetime import timedelta

import icalendar
import pytest

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
