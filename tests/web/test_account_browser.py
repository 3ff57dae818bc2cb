"""Accounts in the browser (v1.4), in headless Chromium as a person meets them: a second
browser signs in by a link approved on the first (which shows the label and asks first),
the terminal's `samedeal login` is approved from the account page, and signing out every
other device signs the second browser out at once."""

from __future__ import annotations

import asyncio
import os
import re
from typing import Any

from tests.support.harness import Running
from tests.support.processes import samedeal_started, until_printed
from tests.web.conftest import new_page, shot


async def register_in_lobby(page: Any, server: Running, name: str) -> None:
    await page.goto(server.http + "/")
    await page.fill("#reg-name", name)
    await page.click("form.register button[type=submit]")
    await page.wait_for_selector(".save-token")


async def test_a_second_browser_and_the_terminal_sign_in_by_links(
    browser: Any, server: Running, tmp_path: Any
) -> None:
    errors: list[str] = []
    first = await new_page(browser, errors)
    await register_in_lobby(first, server, "pia")
    second = await new_page(browser, errors)
    await second.goto(server.http + "/")
    await second.click("a.link-signin")
    await second.click("button.link-start")
    code = (await second.text_content("#shown-code")) or ""
    assert re.fullmatch(r"[A-Z]{4}-[A-Z]{4}", code), code

    await first.goto(f"{server.http}/account?code={code}")
    await first.click("form.link-approve button[type=submit]")
    ask = await first.text_content(".link-ask .ask") or ""
    assert "browser on" in ask and "pia" in ask  # the label, shown before approving
    await first.click("button.approve-yes")
    await second.wait_for_selector("text=Signed in as pia.", timeout=30_000)
    await first.wait_for_function("document.querySelectorAll('li.device').length === 2")
    await shot(first, "account-devices")

    # the terminal: samedeal login, approved from the account page
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "cfg"), "SAMEDEAL_SERVER": server.ws_url}
    proc = await samedeal_started(env, "login", "--label", "my terminal")
    found = await until_printed(proc, r"(http://\S+/account\?code=([A-Z-]{9}))")
    await first.goto(found[1])  # the address the QR code holds
    await first.click("form.link-approve button[type=submit]")
    assert "my terminal" in (await first.text_content(".link-ask .ask") or "")
    await first.click("button.approve-yes")
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode == 0 and "signed in as pia" in out.decode(), err
    await first.wait_for_function("document.querySelectorAll('li.device').length === 3")

    # sign every other device out: the second browser is told at once
    await first.click("button.revoke-others")
    await first.wait_for_selector("text=2 other devices signed out.")
    await second.wait_for_function(
        "localStorage.getItem('samedeal.token') === null", timeout=30_000
    )
    await second.wait_for_selector("button.link-start")
    assert await first.evaluate("localStorage.getItem('samedeal.token') !== null")
    assert errors == [], errors


async def test_deleting_the_account_asks_for_the_name_and_keeps_nothing_here(
    browser: Any, server: Running
) -> None:
    errors: list[str] = []
    page = await new_page(browser, errors)
    await register_in_lobby(page, server, "Rosa")
    await page.goto(server.http + "/account")
    await page.click("details.delete-account summary")
    await page.fill("#delete-name", "rosa")  # not exactly the name
    assert await page.is_disabled("button.delete-go")
    await page.fill("#delete-name", "Rosa")
    assert not await page.is_disabled("button.delete-go")
    await page.click("button.delete-go")
    await page.wait_for_selector("p.deleted")
    assert await page.evaluate("localStorage.getItem('samedeal.token') === null")
    async with server.client() as c:
        await c.err("not_found", type="player", name="Rosa")
        await c.err("name_taken", type="register", name="rosa")
    assert errors == [], errors
