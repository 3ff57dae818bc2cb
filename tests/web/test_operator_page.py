"""The operator's page in headless Chromium, as an organiser meets it: the header leads to
it for operators only; a player who is not an operator sees "Operators only"; the forms
offer every option of the command lines as fields (the game from a list, its variant and
options, minutes, time limit, join cutoff, entry conditions, rated, beacon) and send
exactly what was chosen; a bad value is refused in the server's one line and changes
nothing; closing a tournament and cancelling a schedule ask first; phone and desktop fit;
no error and no CSP violation."""

from __future__ import annotations

from typing import Any

from tests.support.harness import Running
from tests.web.conftest import new_page, register, shot
from tests.web.test_first_contact import page_at, sideways


async def test_operator_page(browser: Any, server: Running) -> None:
    errors: list[str] = []
    page = await new_page(browser, errors)
    await register(page, server.http, "someone")
    assert await page.locator("header a[href='/operator']").count() == 0
    await page.goto(f"{server.http}/operator")
    await page.wait_for_selector("text=Operators only")
    await server.app.store.set_admin("someone")
    await page.goto(f"{server.http}/")
    await page.click("header a[href='/operator']")  # the header leads operators there
    await page.wait_for_selector("form.op-tournament")

    await page.fill("#t-name", "Evening Gaps")
    await page.fill("#t-minutes", "90")
    await page.fill("#t-limit", "15")
    await page.fill("#t-join", "30")
    await page.fill("#t-age", "1")
    await page.check("#t-no-bots")
    await page.uncheck("#t-rated")
    await page.click("form.op-tournament button[type=submit]")
    await page.wait_for_selector(".op-msg.ok:has-text('created Evening Gaps')")
    row = page.locator("ul.op-tournaments li", has_text="Evening Gaps")
    await row.wait_for()

    await page.fill("#t-name", "Klondike hour")
    await page.select_option("#t-game", "klondike")
    assert not await page.locator("#t-variant").is_visible()
    await page.select_option("#t-draw", "3")
    await page.fill("#t-passes", "3")
    await page.check("#t-hints")
    await page.click("form.op-tournament button[type=submit]")
    await page.wait_for_selector(".op-msg.ok:has-text('created Klondike hour')")

    await page.fill("#t-name", "Upside down")
    await page.select_option("#t-game", "gaps")
    await page.fill("#t-min-rating", "20")
    await page.fill("#t-max-rating", "10")
    await page.click("form.op-tournament button[type=submit]")
    await page.wait_for_selector(".op-msg.error:has-text('min_rating is above max_rating')")
    assert "bad_request" not in await page.locator(".op-msg").inner_text()  # no raw code

    await page.fill("#s-name", "Daily Gaps")
    await page.fill("#s-first", "2099-01-01T18:00")
    await page.fill("#s-redeals", "1")
    await page.fill("#s-minutes", "45")
    await page.click("form.op-schedule button[type=submit]")
    await page.wait_for_selector(".op-msg.ok:has-text('scheduled Daily Gaps')")
    schedule = page.locator("ul.op-schedules li", has_text="Daily Gaps")
    assert "every day, 45 min each" in await schedule.inner_text()
    await shot(page, "operator")

    made = {t["name"]: t for t in await _tournaments(server)}
    assert "Upside down" not in made
    evening = made["Evening Gaps"]
    assert evening["options"] == {"redeals": 2, "redeal": "keep_runs", "winnable": False}
    assert evening["time_limit_s"] == 900 and evening["rated"] is False
    assert evening["conditions"] == {"min_account_age_s": 86400, "bots": False}
    assert _minutes(evening["starts_at"], evening["ends_at"]) == 90
    assert _minutes(evening["starts_at"], evening["join_until"]) == 30
    klondike = made["Klondike hour"]["options"]
    assert klondike == {"draw": 3, "passes": 3, "hints": True, "guaranteed": False}

    await row.locator("button.close").click()
    await row.locator(".confirm-q", has_text="cannot be undone").wait_for()
    await row.locator("button.close-no").click()  # kept: nothing happens
    assert (await _status(server))["Evening Gaps"] == "open"
    await row.locator("button.close").click()
    await row.locator("button.close-yes").click()
    await page.wait_for_selector(".op-msg.ok:has-text('closed Evening Gaps')")
    assert await page.locator("ul.op-tournaments li", has_text="Evening Gaps").count() == 0
    await schedule.locator("button.cancel").click()
    await schedule.locator("button.cancel-yes").click()
    await page.wait_for_selector("ul.op-schedules li:has-text('cancelled')")
    assert (await _status(server))["Evening Gaps"] == "closed"

    phone = await page_at(browser, "phone", errors)
    await phone.goto(server.http + "/")
    token = await page.evaluate("localStorage.getItem('samedeal.token')")
    await phone.evaluate("(t) => localStorage.setItem('samedeal.token', t)", token)
    await phone.goto(f"{server.http}/operator")
    await phone.wait_for_selector("form.op-schedule")
    assert await sideways(phone) == 0
    assert errors == []


def _minutes(start: str, end: str) -> float:
    from datetime import datetime

    return (datetime.fromisoformat(end) - datetime.fromisoformat(start)).total_seconds() / 60


async def _status(server: Running) -> dict[str, str]:
    return {t["name"]: t["status"] for t in await _tournaments(server)}


async def _tournaments(server: Running) -> list[dict[str, Any]]:
    async with server.client() as c:
        return list((await c.ok(type="tournaments"))["items"])
