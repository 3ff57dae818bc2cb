"""The leaderboard and player pages in headless Chromium: reached from the lobby's header
and from a tournament's standings, paged, with the rating plot (inline SVG), recent
results with rank and percentile, and streaks; no error and no CSP violation."""

from __future__ import annotations

from typing import Any

from server.competition import ratings
from tests.support.harness import Client, Running
from tests.web.conftest import close, create, new_page, shot


async def play_tournament(server: Running, tokens: dict[str, str], moves: dict[str, int]) -> int:
    t = await create(server, name=f"Rated {len(tokens)}", time_limit_s=None)
    for name, n in moves.items():
        async with server.client() as c:
            await c.ok(type="auth", token=tokens[name])
            state = await c.ok(type="join", tournament=t["id"])
            seq = 1
            for _ in range(n):
                if not state["view"]["legal"]:
                    break
                action = {"kind": "move", **state["view"]["legal"][0]}
                state = await c.ok(type="act", tournament=t["id"], seq=seq, action=action)
                seq += 1
            await c.ok(type="act", tournament=t["id"], seq=seq, action={"kind": "resign"})
    await close(server, t["id"])
    await ratings.settle()  # the server's rating task (in this process)
    return int(t["id"])


async def registered(server: Running, names: list[str], bot: str) -> dict[str, str]:
    tokens = {}
    for name in [*names, bot]:
        async with server.client() as c:
            reg = await c.ok(type="register", name=name, **({"bot": True} if name == bot else {}))
            tokens[name] = reg["token"]
    return tokens


async def test_leaderboard_and_player_pages(browser: Any, server: Running) -> None:
    names = [f"p{i:02d}" for i in range(55)]  # more than a page of 50
    tokens = await registered(server, names, "robo")
    first = await play_tournament(
        server, tokens, {n: i % 7 for i, n in enumerate(names)} | {"robo": 4}
    )
    second = await play_tournament(server, tokens, {"p01": 6, "p02": 0, "p03": 3})
    errors: list[str] = []
    page = await new_page(browser, errors)
    base = server.http

    await page.goto(f"{base}/")
    await page.click("header nav a[href='/leaderboard/gaps']")  # from the lobby
    board = page.locator("table.leaderboard tbody tr")
    await board.first.wait_for()
    assert await board.count() == 50
    assert "1–50 of 55" in await page.locator(".pager").inner_text()
    assert await page.locator("tr[data-player='robo']").count() == 0  # bots are not rated
    ratings = [float(t) for t in await page.locator("td.rating").all_inner_texts()]
    assert ratings == sorted(ratings, reverse=True)
    assert await page.locator(".tag.provisional").count() == 50
    await shot(page, "leaderboard")
    await page.click("button.next")
    await page.locator(".pager", has_text="51–55 of 55").wait_for()
    assert await board.count() == 5
    await page.click("button.prev")
    await page.locator(".pager", has_text="1–50 of 55").wait_for()

    if not await page.locator("tr[data-player='p01']").count():  # on the second page
        await page.click("button.next")
    await page.click("tr[data-player='p01'] a.player")
    await page.locator(".player-page h1", has_text="p01").wait_for()
    assert await page.locator(".rating-plot circle").count() == 2  # two rated tournaments
    recent = page.locator("table.recent tbody tr")
    assert await recent.count() == 2
    assert await recent.first.get_attribute("data-tournament") == str(second)
    result = recent.first.locator(".result")
    rank = int(await result.get_attribute("data-rank") or 0)
    entrants = int(await result.get_attribute("data-entrants") or 0)
    assert f" of {entrants}" in await result.inner_text()
    assert entrants == 3
    assert await recent.first.locator(".percentile").inner_text() == (
        f"{round(100 * (entrants - rank + 1) / entrants, 1):.1f}%"
    )
    assert await page.locator(".streaks li[data-game='gaps'] .streak").count() == 1
    await shot(page, "player")

    # from a tournament's final standings to a player's page
    await page.goto(f"{base}/t/{second}")
    await page.locator(".standings tr[data-player='p03'] a").click()
    await page.locator(".player-page h1", has_text="p03").wait_for()
    assert await page.locator("table.recent tbody tr").count() == 2
    await page.goto(f"{base}/players/robo")
    await page.locator(".player-page h1 .tag.bot").wait_for()
    assert await page.locator(f"table.recent tr[data-tournament='{first}']").count() == 1
    assert "Bots are never rated." in await page.locator(".player-page").inner_text()
    assert await page.locator("table.recent tbody tr").count() == 1

    await page.goto(f"{base}/players/nobody")
    await page.locator("main", has_text="no player named").wait_for()
    assert not errors, errors
    await page.context.close()


async def test_the_pages_need_no_account(browser: Any, server: Running) -> None:
    tokens = await registered(server, ["ann", "bob"], "robo")
    await play_tournament(server, tokens, {"ann": 2, "bob": 0})
    page = await new_page(browser)
    await page.goto(f"{server.http}/leaderboard/gaps")
    await page.locator("table.leaderboard tbody tr").first.wait_for()
    assert await page.evaluate("localStorage.getItem('samedeal.token')") is None
    await page.goto(f"{server.http}/leaderboard/klondike")
    await page.locator("main", has_text="nobody is rated in this game yet").wait_for()
    assert isinstance(Client, type)
    await page.context.close()
