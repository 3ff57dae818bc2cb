"""Every page at a phone's 390×844, in headless Chromium, with real data (long and
accented names, a closed rated tournament, an open one being played): no page scrolls
sideways, no table header or player name is cut to nothing, and a player page says how a
tournament ended for the player (rank and its meaning), not how the game ended."""

from __future__ import annotations

from typing import Any

from playwright.async_api import TimeoutError as PlaywrightTimeout

from server.competition import ratings
from tests.support.harness import Running
from tests.web.conftest import close, create, shot
from tests.web.test_first_contact import page_at, sideways
from tests.web.test_ratings_pages import play_tournament, registered

NAMES = ["Maximiliano_Fernández", "João", "ana", "Zoë-Ærø_1234567890123456789012", "Bea"]


async def cut_cells(page: Any) -> list[str]:
    """Header cells cut at all, and player names cut to under twelve characters' width
    while their text is longer (a long name may end in "…", but not be lost)."""
    return list(
        await page.evaluate(
            """() => [...document.querySelectorAll('th, td.player')].filter((el) => {
                 const text = el.textContent.trim();
                 if (!text || el.offsetParent === null) return false;
                 const shown = el.clientWidth, needed = el.scrollWidth;
                 if (el.tagName === 'TH') return needed > shown;
                 const em = parseFloat(getComputedStyle(el).fontSize) || 16;
                 return needed > shown && shown < 12 * 0.55 * em;
               }).map((el) => el.textContent.trim())"""
        )
    )


async def routes(server: Running) -> tuple[list[str], str, str]:
    """The app's routes over a closed rated tournament and an open one being played (by
    a bot too), the name of a player whose page has a result, and the token of the
    longest-named player, an operator who plays in the open one."""
    tokens = await registered(server, NAMES, "robo")
    closed = await play_tournament(server, tokens, {n: i for i, n in enumerate(NAMES)})
    await ratings.settle()
    live = await create(server, name="Torneio de sexta-feira à noite")
    for name in [*NAMES[:3], "robo"]:
        async with server.client() as c:
            await c.ok(type="auth", token=tokens[name])
            st = await c.ok(type="join", tournament=live["id"])
            act = {"kind": "move", **st["view"]["legal"][0]}
            await c.ok(type="act", tournament=live["id"], seq=1, action=act)
    done = await create(server, name="Closed early")
    await close(server, done["id"])
    async with server.client() as c:
        page = await c.ok(type="standings_page", tournament=closed, offset=0, limit=1)
    winner = page["rows"][0]["player"]
    return (
        [
            "/",
            f"/t/{live['id']}",
            f"/t/{closed}",
            f"/t/{closed}/replay/{winner}",
            f"/t/{closed}/analysis",
            "/verify",
            "/leaderboard/gaps",
            f"/players/{winner}",
            f"/t/{closed}/replay/{NAMES[3]}",  # the longest name, whatever its rank
            f"/players/{NAMES[3]}",
            "/players/Jo%C3%A3o",
            "/operator",
        ],
        winner,
        tokens[NAMES[0]],
    )


async def settled_sideways(page: Any, within_ms: float = 5_000) -> int:
    """How far the page still scrolls sideways once it has settled: 0 as soon as it does
    not, else the overflow left after `within_ms` (a page still laying out its first
    push, on a loaded machine, may overflow for a moment; what stays is the finding)."""
    try:
        await page.wait_for_function(
            "() => Math.max(document.documentElement.scrollWidth, document.body.scrollWidth)"
            " <= window.innerWidth",
            timeout=within_ms,
        )
        return 0
    except PlaywrightTimeout:
        return await sideways(page)


def ready(path: str) -> str:
    """What shows that the page at `path` has its data (the standings' rows, a table...)."""
    parts = path.split("/")
    if path == "/":
        return ".tcard"
    if parts[1] == "t":
        if len(parts) == 3:
            return "section.standings tbody tr[data-player]"
        return ".replay-controls" if parts[3] == "replay" else ".lines-grid .line-col"
    return {
        "verify": ".dropzone",
        "leaderboard": "table.leaderboard tbody tr",
        "players": "table.recent tbody tr",
        "operator": "form.op-tournament",
        "rules": ".rules section.rule",
        "account": "section.approve",
    }[parts[1]]


async def test_no_page_scrolls_sideways_on_a_phone(browser: Any, server: Running) -> None:
    paths, _, token = await routes(server)
    await server.app.store.set_admin(NAMES[0])
    errors: list[str] = []
    page = await page_at(browser, "phone", errors)
    await page.goto(server.http + "/")
    await page.evaluate("(t) => localStorage.setItem('samedeal.token', JSON.stringify(t))", token)
    wide: dict[str, int] = {}
    cut: dict[str, list[str]] = {}
    for path in paths:
        await page.goto(server.http + path)
        await page.locator(ready(path)).first.wait_for()
        if await page.locator("section.closed-panel").count():
            # its replays list fills once the bundle is fetched: where a long name in two
            # columns once overflowed by 97 px (seen only when the bundle came in time)
            await page.locator("ul.replays li a").first.wait_for()
        if (over := await settled_sideways(page)) > 0:
            wide[path] = over
        await shot(page, "phone" + path.replace("/", "-").replace("%", ""))
        if names := await cut_cells(page):
            cut[path] = names
    assert not wide, wide
    assert not cut, cut
    assert not errors, errors


async def test_a_player_page_says_the_tournament_result(browser: Any, server: Running) -> None:
    _, winner, _ = await routes(server)
    errors: list[str] = []
    page = await page_at(browser, "desktop", errors)
    await page.goto(f"{server.http}/players/{winner}")
    row = page.locator("table.recent tbody tr").first
    await row.wait_for()
    result = await row.locator(".result").inner_text()
    assert f"1st of {len(NAMES)}" in result and "winner" in result, result
    assert "resigned" not in await row.inner_text()  # the game's end is not the result
    assert "resigned" in (await row.locator(".result").get_attribute("title") or "")
    assert not errors, errors
