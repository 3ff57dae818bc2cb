"""Issue 39, the player's words in the browser: a Klondike hint is said in cards ("move the
7♣ onto the 8♥"), never in the protocol's t0…t6; a touch screen (coarse pointer) is told
to tap, a mouse to click; singular and plural from the catalogue. Chromium at 390×844
(touch) and 1280×900."""

from __future__ import annotations

import re
from typing import Any

from tests.support.harness import Running
from tests.web.conftest import create, register, wait_seq
from tests.web.test_first_contact import sideways

VIEW = {  # a Klondike VIEW as the page holds it: what the hint is read against
    "stock": 10,
    "waste": ["3D", "QS"],
    "waste_count": 2,
    "foundations": {"C": "AC", "D": None, "H": None, "S": None},
    "tableau": [
        {"down": 0, "up": ["8H"]},
        {"down": 2, "up": ["9S", "8D", "7C"]},
        {"down": 0, "up": []},
        {"down": 1, "up": ["2C"]},
        {"down": 3, "up": ["KD", "QC", "JH", "TS"]},
        {"down": 0, "up": ["7S"]},
        {"down": 0, "up": ["6H"]},
    ],
}


def move(src: str, dst: str, count: int = 1) -> dict[str, Any]:
    return {"kind": "move", "from": src, "to": dst, "count": count}


SAID = [
    (move("t1", "t0"), "move the 7♣ onto the 8♥"),
    ({"kind": "move", "from": "t5", "to": "t0"}, "move the 7♠ onto the 8♥"),
    (move("t1", "t0", 2), "move the 8♦ and the card on it onto the 8♥"),
    (move("t4", "t2", 4), "move the K♦ and the 3 cards on it into the empty column 3"),
    (move("t4", "t2"), "move the 10♠ into the empty column 3"),
    (move("t3", "fC"), "move the 2♣ home to its foundation"),
    (move("waste", "t6"), "move the Q♠ onto the 6♥"),
    ({"kind": "draw"}, "draw"),
]  # fmt: skip


async def open_game(browser: Any, server: Running, touch: bool, name: str) -> tuple[Any, list[str]]:
    t = await create(
        server, name="Klondike hour", game="klondike", options={"draw": 1, "hints": True}
    )
    size = {"width": 390, "height": 844} if touch else {"width": 1280, "height": 900}
    context = await browser.new_context(viewport=size, has_touch=touch, is_mobile=touch)
    page = await context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(f"pageerror: {e}"))
    await register(page, server.http, name)
    await page.goto(f"{server.http}/t/{t['id']}")
    await page.click("button.join")
    await wait_seq(page, 0)
    return page, errors


async def test_hints_in_cards_and_the_touch_screens_words(browser: Any, server: Running) -> None:
    for touch, name in [(True, "tapper"), (False, "clicker")]:
        page, errors = await open_game(browser, server, touch, name)
        legend = await page.locator(".board .legend").inner_text()
        if touch:
            assert "Tap a card" in legend and "Double-tap" in legend, legend
            assert "click" not in legend.lower() and "Keys:" not in legend, legend
        else:
            assert "Click a card" in legend and "Double-click" in legend, legend
        said = await page.evaluate(
            """async ([view, actions]) => {
                 const m = await import('/static/hintwords.js');
                 return actions.map((a) => m.hintWords(a, view));
               }""",
            [VIEW, [action for action, _ in SAID]],
        )
        assert said == [words for _, words in SAID]
        await page.click("button.hint")
        message = page.locator(".message", has_text=re.compile("hint|No moves"))
        await message.wait_for()
        text = await message.inner_text()
        assert not re.search(r"\bt\d\b", text), text  # no protocol place names
        if "move" in text:
            assert re.search(r"(10|[2-9AJQK])[♣♦♥♠]", text), text
        assert await sideways(page) <= 0
        assert not errors, errors
        await page.context.close()


async def test_gaps_legend_on_a_touch_screen(browser: Any, server: Running) -> None:
    t = await create(server, name="Gaps hour")
    context = await browser.new_context(
        viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True
    )
    page = await context.new_page()
    await register(page, server.http, "toucher")
    await page.goto(f"{server.http}/t/{t['id']}")
    await page.click("button.join")
    await wait_seq(page, 0)
    legend = await page.locator(".board .legend").first.inner_text()
    assert legend.startswith("Tap a gap to play the card that fits it"), legend
    await context.close()
