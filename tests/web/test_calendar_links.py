"""Issue 39, reminders in the browser: a scheduled tournament's card in the lobby and its
page link to its own calendar event, the lobby's series section to the feed, both in the
page's language; what the links give is iCalendar with the alarm (parsed by `icalendar`).
Chromium at 390×844 and 1280×900."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import icalendar

from tests.support.harness import Running
from tests.web.conftest import create
from tests.web.test_first_contact import page_at, sideways


async def test_add_to_calendar_links_in_the_pages_language(browser: Any, server: Running) -> None:
    now = datetime.now(UTC)
    t = await create(
        server,
        name="Clube Gaps rápido",
        starts_at=(now + timedelta(hours=2)).isoformat(),
        ends_at=(now + timedelta(hours=3)).isoformat(),
    )
    for size, lang, alarm in [
        ("phone", "pt-BR", "Clube Gaps rápido começa em 15 minutos"),
        ("desktop", "en", "Clube Gaps rápido starts in 15 minutes"),
    ]:
        errors: list[str] = []
        page = await page_at(browser, size, errors)
        await page.goto(f"{server.http}/?lang={lang}")
        add = page.locator(f'li.tcard[data-id="{t["id"]}"] a.calendar-add')
        await add.wait_for()
        href = await add.get_attribute("href")
        assert href == f"/tournaments/{t['id']}/calendar.ics?lang={lang}", href
        feed = page.locator("section.series a.calendar-feed")
        await feed.wait_for()
        assert await feed.get_attribute("href") == f"/calendar.ics?lang={lang}"
        assert await sideways(page) <= 0
        body = await page.evaluate("(u) => fetch(u).then((r) => r.text())", href)
        [event] = icalendar.Calendar.from_ical(body).walk("VEVENT")
        assert str(event.walk("VALARM")[0]["DESCRIPTION"]) == alarm
        feed_body = await page.evaluate(
            "(u) => fetch(u).then((r) => r.text())", f"/calendar.ics?lang={lang}"
        )
        uids = [str(e["UID"]) for e in icalendar.Calendar.from_ical(feed_body).walk("VEVENT")]
        assert str(event["UID"]) in uids
        await page.goto(f"{server.http}/t/{t['id']}?lang={lang}")
        on_page = page.locator("section.thead a.calendar-add")
        await on_page.wait_for()
        assert await on_page.get_attribute("href") == href
        assert await sideways(page) <= 0
        assert not errors, errors
        await page.context.close()
