"""The lobby's upcoming occurrences in headless Chromium: each schedule with its next
occurrences, a countdown on the server's clock, the commitment of those created (the
same as the protocol's) and a link; no error and no CSP violation."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any

from tests.support.harness import Running
from tests.web.conftest import new_page, shot


async def test_the_lobby_lists_upcoming_occurrences(browser: Any, server: Running) -> None:
    op = await server.admin("organiser")
    first = datetime.now(UTC) + timedelta(minutes=10)
    made = (
        await op.ok(
            type="create_schedule",
            name="Daily Gaps",
            game="gaps",
            options={"redeals": 2},
            first_starts_at=first.isoformat(),
            every_s=86400,
            duration_s=3600,
            conditions={"bots": False, "min_account_age_s": 3600},
        )
    )["schedule"]
    created = made["next"][0]
    errors: list[str] = []
    page = await new_page(browser, errors)
    await page.goto(f"{server.http}/")
    row = page.locator(f"li.schedule[data-schedule='{made['id']}']")
    await row.wait_for()
    assert "every day" in await row.inner_text()
    assert "no bots" in await row.inner_text()
    occurrences = row.locator("li.occurrence")
    assert await occurrences.count() == 3
    one = occurrences.nth(0)
    assert created["commitment"] in (
        await one.locator("code").text_content() or ""
    )  # under "audit"
    assert await one.locator(f"a[href='/t/{created['id']}']").inner_text() == "Daily Gaps #1"
    countdown = one.locator(".countdown")
    assert re.fullmatch(r"opens in (9|10) min", await countdown.inner_text())
    later = occurrences.nth(1)
    assert "Daily Gaps #2" in await later.inner_text()
    assert "commitment published one period before it opens" in await later.inner_text()
    await shot(page, "lobby-series")
    await one.locator("a").click()
    await page.wait_for_url(f"**/t/{created['id']}")
    assert errors == []
