"""The pages as a new user meets them, in headless Chromium: at 390×844 (a phone) and
1280×900 nothing scrolls sideways, the Gaps board shows its 13 columns, Klondike its 4
foundations, the standings table fits its card; running clocks advance from
`server_time` (the page's clock driven by Playwright, not slept on); an early close is
told as such in the lobby, on /t/ID and to the players it cut off; registering says to
save the token, and signing out asks first."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.harness import Running
from tests.web.conftest import close, create, shot, state, wait_seq

SIZES = {"phone": (390, 844), "desktop": (1280, 900)}


async def page_at(browser: Any, size: str, errors: list[str]) -> Any:
    width, height = SIZES[size]
    context = await browser.new_context(viewport={"width": width, "height": height})
    page = await context.new_page()
    page.on("pageerror", lambda e: errors.append(f"pageerror: {e}"))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    return page


async def sideways(page: Any) -> int:
    """How far the page scrolls sideways (0: not at all)."""
    return int(
        await page.evaluate(
            "Math.max(document.documentElement.scrollWidth, document.body.scrollWidth)"
            " - window.innerWidth"
        )
    )


async def outside(page: Any, selector: str) -> list[str]:
    """The elements matching `selector` that are not wholly inside the viewport's width."""
    return list(
        await page.evaluate(
            """(sel) => [...document.querySelectorAll(sel)].filter((el) => {
                 const r = el.getBoundingClientRect();
                 return r.left < 0 || r.right > window.innerWidth + 0.5 || r.width === 0;
               }).map((el) => el.getAttribute('aria-label') || el.className)""",
            selector,
        )
    )


async def table_overflow(page: Any) -> int:
    """How far the standings table overflows its card (0: it fits)."""
    return int(
        await page.evaluate(
            """() => { const card = document.querySelector('.side').getBoundingClientRect();
                       const table = document.querySelector('.standings table');
                       const box = table.getBoundingClientRect();
                       return box.right - card.right + (table.scrollWidth - table.clientWidth); }"""
        )
    )


async def sign_up(page: Any, base: str, name: str) -> None:
    await page.goto(base + "/")
    await page.fill("#reg-name", name)
    await page.click("form.register button")
    await page.wait_for_selector(".save-token")


async def some_players(srv: Running, tid: int, names: list[str]) -> None:
    """Players who join and move twice; the last resigns (a finished row)."""
    for name in names:
        async with srv.client() as c:
            await c.ok(type="register", name=name)
            st = await c.ok(type="join", tournament=tid)
            for _ in range(2):
                act = {"kind": "move", **st["view"]["legal"][0]}
                st = await c.ok(type="act", tournament=tid, seq=st["seq"] + 1, action=act)
            if name == names[-1]:
                resign = {"kind": "resign"}
                await c.ok(type="act", tournament=tid, seq=st["seq"] + 1, action=resign)


@pytest.mark.parametrize("size", ["phone", "desktop"])
async def test_pages_fit_the_screen(browser: Any, server: Running, size: str) -> None:
    base = server.http
    errors: list[str] = []
    gaps = await create(server, name="Phone Gaps")
    klon = await create(server, name="Phone Klondike", game="klondike", options={"draw": 3})
    await some_players(server, gaps["id"], ["a_long_player_name_x", "zed"])
    page = await page_at(browser, size, errors)
    await sign_up(page, base, f"fit_{size}")
    await page.wait_for_selector(".tcard")
    assert await sideways(page) == 0
    await shot(page, f"{size}-lobby")

    await page.goto(f"{base}/t/{gaps['id']}")
    await page.click("button.join")
    await wait_seq(page, 0)
    await page.wait_for_selector(".standings tbody tr[data-player]")
    assert await sideways(page) == 0
    cells = await page.locator(".gaps-row").first.locator(".cell").count()
    assert cells == 13
    assert await outside(page, ".gaps-row .cell") == []  # all 13 columns, 4 rows
    assert await table_overflow(page) <= 0
    await shot(page, f"{size}-gaps")

    await page.goto(f"{base}/t/{klon['id']}")
    await page.click("button.join")
    await wait_seq(page, 0)
    assert await sideways(page) == 0
    assert await page.locator(".foundation").count() == 4
    assert await outside(page, ".foundation, .stock, .column") == []
    await shot(page, f"{size}-klondike")
    assert not errors, errors


async def test_running_clocks_advance_from_server_time(browser: Any, server: Running) -> None:
    """A watcher's standings: the running rows' times move with the page's clock (driven
    75 s ahead by Playwright), the finished row's does not; no push is needed."""
    tid = (await create(server, name="Clocks"))["id"]
    await some_players(server, tid, ["runner", "stopper"])
    errors: list[str] = []
    page = await page_at(browser, "desktop", errors)
    await page.clock.install()
    await page.goto(f"{server.http}/t/{tid}")
    await page.wait_for_selector(".standings tr[data-player='stopper']")

    async def seconds(player: str) -> int:
        text = await page.locator(f".standings tr[data-player='{player}'] td.time").inner_text()
        m, s = text.split(":")[-2:]
        return int(m) * 60 + int(s)

    running, stopped = await seconds("runner"), await seconds("stopper")
    assert await page.locator(".standings tr[data-player='runner'] td.time.running").count()
    await page.clock.fast_forward(75_000)
    await page.clock.run_for(1_100)  # the panel's one-second tick
    assert 75 <= await seconds("runner") - running <= 78
    assert await seconds("stopper") == stopped
    assert not errors, errors


async def test_an_early_close_is_told_as_such(browser: Any, server: Running) -> None:
    errors: list[str] = []
    t = await create(server, name="Cut Short")
    page = await page_at(browser, "desktop", errors)
    await sign_up(page, server.http, "cut_short")
    await page.goto(f"{server.http}/t/{t['id']}")
    await page.click("button.join")
    await wait_seq(page, 0)
    await close(server, t["id"])  # an hour before its end
    await page.wait_for_function("() => window.samedeal.state.status === 'timed_out'")
    over = await page.locator(".over").inner_text()
    assert "organiser closed the tournament" in over and "Time is up" not in over
    head = await page.locator(".thead .countdown").inner_text()
    assert head.startswith("closed early") and "it was to end" in head
    assert (await state(page))["status"] == "timed_out"
    await page.goto(server.http + "/")
    card = page.locator(f".tcard[data-id='{t['id']}']")
    await card.wait_for()
    countdown = await card.locator(".countdown").inner_text()
    assert countdown.endswith("ago") and "in " not in countdown, countdown
    assert "closed early" in await card.inner_text()
    assert not errors, errors


async def test_register_says_to_save_the_token_and_sign_out_asks(
    browser: Any, server: Running
) -> None:
    errors: list[str] = []
    page = await page_at(browser, "phone", errors)
    await sign_up(page, server.http, "careful")
    token = await page.evaluate("JSON.parse(localStorage.getItem('samedeal.token'))")
    assert "no recovery" in await page.locator(".account-box").inner_text() or "recover" in (
        await page.locator(".save-token").inner_text()
    )
    assert await page.locator(".your-token code.token").is_visible()
    assert await page.locator(".your-token code.token").inner_text() == token
    await shot(page, "phone-registered")
    await page.click(".signout")
    await page.wait_for_selector(".signout-confirm")
    assert "never sign in as" in await page.locator(".signout-confirm").inner_text()
    assert await page.evaluate("localStorage.getItem('samedeal.token')") is not None
    await page.click(".signout-no")  # cancel: still signed in
    assert await page.locator(".signout").is_visible()
    await page.click(".signout")
    await page.click(".signout-yes")
    await page.wait_for_selector("#reg-name")
    assert await page.evaluate("localStorage.getItem('samedeal.token')") is None
    assert not errors, errors


async def test_joao_registers_in_the_browser_and_opens_his_player_page(
    browser: Any, server: Running
) -> None:
    """v1.4 names: the lobby's form takes "João" (it used to answer "Please match the
    requested format"), his player page opens at /players/Jo%C3%A3o, and a look-alike
    name of two alphabets is refused with the server's reason."""
    errors: list[str] = []
    page = await page_at(browser, "phone", errors)
    await sign_up(page, server.http, "João")
    assert await page.evaluate("localStorage.getItem('samedeal.token')") is not None
    await page.goto(server.http + "/players/Jo%C3%A3o")
    await page.wait_for_function("document.body.dataset.page === 'player'")
    await page.wait_for_selector("h1, h2")
    assert "João" in await page.locator("main").inner_text()
    other = await page_at(browser, "desktop", errors)
    await other.goto(server.http + "/")
    await other.fill("#reg-name", "J\u043e\u00e3o")
    await other.click("form.register button")
    await other.wait_for_selector("text=Cyrillic and Latin")
    assert await other.evaluate("localStorage.getItem('samedeal.token')") is None
    assert not errors, errors
