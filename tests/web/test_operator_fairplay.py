"""The operator's fair play in headless Chromium: an operator reads the organiser's report
(shared opening, a bot, new accounts, each with why and its figures), sees bad input
refused in clear words with nothing changed, disqualifies before and after the close;
a watcher in another browser context sees the entry unranked with its reason and a bot
tagged, the closed page lists the amended standings and verifies the amended bundle;
a player who is not an operator can do neither. Screenshots at 1280×900 and 390×844,
with nothing scrolling sideways."""

from __future__ import annotations

from typing import Any

from websockets.asyncio.client import connect

from tests.support.harness import Client, Running
from tests.web.conftest import create, shot
from tests.web.test_first_contact import SIZES, page_at, sideways

SLOW = 120_000  # ms: a close or an amendment waits for the ratings' worker process


async def entrant(server: Running, tid: int, name: str, moves: int, bot: bool = False) -> Client:
    """A player (a bot when `bot`) who joins and plays the first legal move `moves` times:
    on the same deal, every such player has the same opening."""
    c = Client(await connect(server.ws_url, max_size=None), server.frames)
    reg = await c.ok(type="register", name=name, bot=bot)
    await c.ok(type="auth", token=reg["token"])
    state = await c.ok(type="join", tournament=tid)
    for seq in range(1, moves + 1):
        action = {"kind": "move", **state["view"]["legal"][0]}
        state = await c.ok(type="act", tournament=tid, seq=seq, action=action)
    return c


async def refused(page: Any, kind: str, **fields: Any) -> str:
    """The error code the page's own connection gets for `kind` (or "ok")."""
    return str(
        await page.evaluate(
            "([kind, fields]) => window.samedeal.link.call(kind, fields)"
            ".then(() => 'ok', (e) => e.code)",
            [kind, fields],
        )
    )


async def both_sizes(page: Any, name: str) -> None:
    """Screenshots at the desktop and phone sizes, neither scrolling sideways."""
    for size, prefix in (("desktop", ""), ("phone", "phone-")):
        width, height = SIZES[size]
        await page.set_viewport_size({"width": width, "height": height})
        assert await sideways(page) == 0, (name, size)
        await shot(page, f"{prefix}{name}")
    await page.set_viewport_size({"width": 1280, "height": 900})


async def test_an_operator_disqualifies_and_reads_the_report_in_the_page(
    browser: Any, server: Running
) -> None:
    t = await create(server, name="Fair Saturday")
    tid = t["id"]
    players = [
        await entrant(server, tid, "ann", 4),
        await entrant(server, tid, "bob", 4),
        await entrant(server, tid, "robo", 1, bot=True),
    ]
    errors: list[str] = []
    base = server.http

    watcher = await page_at(browser, "desktop", errors)  # no account: a watcher
    await watcher.goto(f"{base}/t/{tid}")
    bot_row = watcher.locator(".standings tr[data-player='robo']")
    await bot_row.wait_for(timeout=10_000)
    assert await bot_row.locator(".tag.bot").inner_text() == "bot"
    assert await watcher.locator(".standings tr[data-player='ann'] .tag.bot").count() == 0

    nosy = await page_at(browser, "desktop", errors)
    await nosy.goto(f"{base}/")
    await nosy.fill("#reg-name", "nosy")
    await nosy.click("form.register button")
    await nosy.wait_for_selector(".signout")
    await nosy.goto(f"{base}/operator")
    await nosy.wait_for_selector("text=Operators only")
    assert await nosy.locator("#fp-tournament, form.op-disqualify").count() == 0
    reason = {"reason": "I do not like ann"}
    assert await refused(nosy, "disqualify", tournament=tid, player="ann", **reason) == "forbidden"
    assert await refused(nosy, "fairplay_report", tournament=tid) == "forbidden"

    op = await page_at(browser, "desktop", errors)
    await op.goto(f"{base}/")
    await op.fill("#reg-name", "referee")
    await op.click("form.register button")
    await op.wait_for_selector(".signout")
    await server.app.store.set_admin("referee")
    await op.goto(f"{base}/operator")
    await op.wait_for_selector(f"#fp-tournament option[value='{tid}']", state="attached")
    await op.select_option("#fp-tournament", str(tid))
    await op.wait_for_selector(".dq-list:has-text('3 entrants')")

    await op.fill("#fp-moves", "3")
    await op.click("form.op-report button")
    same = op.locator(".fp-report li.finding[data-kind='same_opening']")
    await same.wait_for(timeout=10_000)
    assert "ann, bob" in await same.inner_text()  # robo played 1 move: not 3
    assert "the first 3 moves of these 2 entries are identical" in await same.inner_text()
    assert "robo" in await op.locator(".fp-report li.finding[data-kind='bot']").inner_text()
    new = op.locator(".fp-report li.finding[data-kind='new_account']", has_text="ann")
    assert "before joining (under 10 min)" in await new.inner_text()  # the figures
    assert "nothing is done about them" in await op.locator(".fp-report").inner_text()

    # bad input: a clear error, nothing changed
    await op.fill("#dq-player", "nobody")
    await op.fill("#dq-reason", "no such entry")
    await op.click("form.op-disqualify button[type=submit]")
    await op.click(".dq-confirm button.dq-yes")
    await op.wait_for_selector(".fp-msg.error:has-text(\"'nobody' has no entry\")")
    assert "not_found" not in await op.locator(".fp-msg").inner_text()  # no raw code
    await op.fill("#dq-player", "ann")
    await op.fill("#dq-reason", "   ")
    await op.click("form.op-disqualify button[type=submit]")
    await op.wait_for_selector(".fp-msg.error:has-text('a reason is required')")
    assert await op.locator(".dq-confirm").count() == 0  # not even asked
    await op.fill("#dq-reason", "second thoughts")
    await op.click("form.op-disqualify button[type=submit]")
    await op.click(".dq-confirm button.dq-no")  # cancelled: nothing sent
    assert await op.locator(".dq-confirm").count() == 0
    assert await watcher.locator(".standings tr.disqualified").count() == 0
    async with server.client() as c:
        rows = (await c.ok(type="standings_page", tournament=tid))["rows"]
    assert all(r["rank"] is not None for r in rows)

    # before the close: picked from the report's line, confirmed
    await op.locator(".fp-report button.pick[data-player='ann']").first.click()
    assert await op.input_value("#dq-player") == "ann"
    await op.fill("#dq-reason", "second account of bob")
    await op.click("form.op-disqualify button[type=submit]")
    assert "cannot be undone" in await op.locator(".dq-confirm").inner_text()
    await op.click(".dq-confirm button.dq-yes")
    await op.wait_for_selector(".fp-msg.ok:has-text('ann disqualified from Fair Saturday')")
    await op.wait_for_selector(".dq-list:has-text('ann (second account of bob)')")
    ann_row = watcher.locator(".standings tr.disqualified[data-player='ann']")
    await ann_row.wait_for(timeout=10_000)
    rows_seen = watcher.locator(".standings tbody tr[data-player]")
    assert await rows_seen.last.get_attribute("data-player") == "ann"
    assert await ann_row.locator("td").first.inner_text() == "DQ"
    note = watcher.locator(".standings tr.dq-note[data-for='ann']")  # the reason, in words
    assert await note.inner_text() == "ann disqualified: second account of bob"
    assert await rows_seen.first.locator("td").first.inner_text() == "1"
    await both_sizes(watcher, "standings-bot-disqualified")
    await both_sizes(op, "operator-fairplay")

    # after the close: an amendment, the watcher's final standings re-ranked
    fair = op.locator("ul.op-tournaments li", has_text="Fair Saturday")
    await fair.locator("button.close").click()
    await fair.locator("button.close-yes").click()  # it asks first
    await op.wait_for_selector(".op-msg.ok:has-text('closed Fair Saturday')", timeout=SLOW)
    await op.wait_for_selector(
        f"#fp-tournament option[value='{tid}']:has-text('closed')", state="attached"
    )
    await op.fill("#dq-player", "bob")
    await op.fill("#dq-reason", "shared the line with ann")
    await op.click("form.op-disqualify button[type=submit]")
    assert "amends its bundle" in await op.locator(".dq-confirm").inner_text()
    await op.click(".dq-confirm button.dq-yes")
    await op.wait_for_selector(".fp-msg.ok:has-text('an amendment')", timeout=SLOW)
    await watcher.locator(".standings tr.disqualified[data-player='bob']").wait_for(timeout=SLOW)
    assert await watcher.locator(".standings .tag.final").count() == 1
    assert await op.locator(".fp-msg.error").count() == 0

    await watcher.reload()  # the closed page: replays of the amended standings, verified
    replays = watcher.locator("ul.replays")
    await replays.locator("li", has_text="DQ bob").wait_for(timeout=10_000)
    text = await replays.inner_text()
    assert "#1 robo (bot)" in text and "disqualified: shared the line with ann" in text
    assert "#null" not in text
    await watcher.click("button.verify-here")
    await watcher.locator(".verdict[data-verdict='ok']").wait_for(timeout=SLOW)
    lines = await watcher.locator(".lines").inner_text()
    assert "fair play: 2 disqualified, 1 of them by amendments after the close" in lines
    for c in players:
        await c.close()
    assert not errors, errors
