"""The operator's page in headless Chromium: a player who is not an operator sees
"Operators only"; an operator creates a tournament and a schedule with the forms, sees a
bad value refused with the server's message, closes a tournament and cancels a schedule;
no error and no CSP violation."""

from __future__ import annotations

from typing import Any

from tests.support.harness import Running
from tests.web.conftest import new_page, register, shot


async def test_operator_page(browser: Any, server: Running) -> None:
    errors: list[str] = []
    page = await new_page(browser, errors)
    await register(page, server.http, "someone")
    await page.goto(f"{server.http}/operator")
    await page.wait_for_selector("text=Operators only")
    await server.app.store.set_admin("someone")
    await page.goto(f"{server.http}/operator")
    await page.wait_for_selector("form.op-tournament")

    await page.fill("#t-name", "Evening Gaps")
    await page.fill("#t-hours", "2")
    await page.click("form.op-tournament button")
    await page.wait_for_selector(".op-msg.ok:has-text('created Evening Gaps')")
    row = page.locator("ul.op-tournaments li", has_text="Evening Gaps")
    await row.wait_for()

    await page.fill("#s-name", "Daily Gaps")
    await page.fill("#s-first", "2099-01-01T18:00")
    await page.fill("#s-options", '{"redeals": -1}')
    await page.click("form.op-schedule button")
    await page.wait_for_selector(".op-msg.error:has-text('bad_request')")  # the server's words
    assert "redeals" in await page.locator(".op-msg").inner_text()
    await page.fill("#s-options", '{"redeals": 1}')
    await page.click("form.op-schedule button")
    await page.wait_for_selector(".op-msg.ok:has-text('scheduled Daily Gaps')")
    await shot(page, "operator")

    await row.locator("button.close").click()
    await page.wait_for_selector(".op-msg.ok:has-text('closed Evening Gaps')")
    assert await page.locator("ul.op-tournaments li", has_text="Evening Gaps").count() == 0
    await page.locator("ul.op-schedules li", has_text="Daily Gaps").locator("button.cancel").click()
    await page.wait_for_selector("ul.op-schedules li:has-text('cancelled')")
    items = {t["name"]: t["status"] for t in await _tournaments(server)}
    assert items == {"Evening Gaps": "closed"}
    assert errors == []


async def _tournaments(server: Running) -> list[dict[str, Any]]:
    async with server.client() as c:
        return list((await c.ok(type="tournaments"))["items"])
