"""The browser client in headless Chromium (Debian's package, driven by Playwright): the
lobby, registration, Gaps by click and by keyboard, a redeal, live standings from a bot,
watching without an account, Klondike by click and drag, the replay and the in-browser
verifier on a closed tournament (good and tampered bundles), and a server restart with
reconnect and resume. Under CI=true a missing Chromium fails (tests/web/support.py)."""

from __future__ import annotations

import asyncio
import copy
import json
import random
import re
from pathlib import Path
from typing import Any

from client_cli.bots import gaps_choice, klondike_choice, play_bot
from server.audit.verify import verify_document
from tests.support.harness import Running, http_get
from tests.support.processes import Killable, ServerProcess, cli, free_port
from tests.web.conftest import close, create, new_page, register, shot, state, wait_seq


async def no_errors(errors: list[str]) -> None:
    assert not [e for e in errors if "WebSocket" not in e and "ERR_CONNECTION" not in e], errors


async def play_gaps_until_blocked(
    page: Any, rnd: random.Random, limit: int = 400
) -> dict[str, Any]:
    """Greedy moves, by click on the card or on the gap, until the position is blocked."""
    st = await state(page)
    for i in range(limit):
        view = st["view"]
        if st["status"] != "playing" or view["blocked"]:
            return st
        action = gaps_choice(view, "greedy", rnd)
        r, c = action["to"]
        takes = [m for m in view["legal"] if m["to"] == [r, c]]
        if len(takes) == 1 and i % 2:
            await page.click(f'.gaps-grid [data-row="{r}"][data-col="{c}"]')
        else:
            await page.click(f'.gaps-grid [data-row="{r}"][data-col="{c}"]') if c == 0 else None
            await page.click(f'.gaps-grid button.card[data-card="{action["card"]}"]')
        st = await wait_seq(page, st["seq"] + 1)
    raise AssertionError("not blocked after the limit")


async def test_lobby_register_join_the_demo_and_play_gaps(browser: Any, tmp_path: Path) -> None:
    """The real server program with its demo tournament: GET / is the lobby (with a CSP),
    register, join the demo, play by keyboard and by click, redeal with confirmation."""
    proc = ServerProcess(f"sqlite+aiosqlite:///{tmp_path / 'demo.db'}", tmp_path / "server.log")
    base = f"http://127.0.0.1:{proc.port}"
    try:
        status, body = http_get(base + "/")
        assert status == 200 and b'<script type="module" src="/static/app.js">' in body
        errors: list[str] = []
        page = await new_page(browser, errors)
        response = await page.goto(base + "/")
        csp = response.headers["content-security-policy"]
        assert "script-src 'self'" in csp and "unsafe-inline" not in csp
        card = page.locator(".tcard", has_text="Demo Gaps")
        await card.wait_for()
        assert re.search(
            r"[0-9a-f]{64}", await card.locator(".commit").text_content() or ""
        )  # under "audit"
        assert "closes in" in await card.locator(".countdown").inner_text()
        await shot(page, "lobby")
        await register(page, base, "alice")
        token = await page.evaluate("localStorage.getItem('samedeal.token')")
        assert token and token.strip('"') not in page.url
        await page.click(".tcard a.go")
        await page.click("button.join")
        st = await wait_seq(page, 0)
        assert st["game"] == "gaps" and st["seq"] == 0
        await page.wait_for_selector(".gaps-grid")
        assert await page.locator(".gaps-grid .cell").count() == 52
        assert await page.locator(".gaps-grid .cell.gap").count() == 4

        # keyboard: Right moves the selection among the gaps; Enter plays what fits
        sel0 = await page.locator(".cell.gap.selected").get_attribute("data-col")
        await page.keyboard.press("ArrowRight")
        await page.keyboard.press("ArrowLeft")
        assert await page.locator(".cell.gap.selected").get_attribute("data-col") == sel0
        st = await state(page)
        sel = page.locator(".cell.gap.selected")
        r, c = int(await sel.get_attribute("data-row")), int(await sel.get_attribute("data-col"))
        fits = [m for m in st["view"]["legal"] if m["to"] == [r, c]]
        if not fits:  # the first gap is dead: walk to one that takes a card
            for _ in range(4):
                await page.keyboard.press("ArrowRight")
                sel = page.locator(".cell.gap.selected")
                r, c = (
                    int(await sel.get_attribute("data-row")),
                    int(await sel.get_attribute("data-col")),
                )
                fits = [m for m in st["view"]["legal"] if m["to"] == [r, c]]
                if fits:
                    break
        await page.keyboard.press("Enter")
        st = await wait_seq(page, 1)
        moved = st["view"]["grid"][r][c]
        assert moved == fits[0]["card"]
        stored = json.loads(await page.evaluate("localStorage.getItem('samedeal.receipts')"))
        assert any(v["seq"] == 1 and v["log_hash"] == st["log_hash"] for v in stored.values())

        # a typed card code, as in the terminal client
        legal = st["view"]["legal"]
        if legal:
            await page.fill("#card-input", legal[0]["card"].replace("T", "10").lower())
            await page.press("#card-input", "Enter")
            st = await wait_seq(page, 2)

        # click play until blocked, then redeal with confirmation
        st = await play_gaps_until_blocked(page, random.Random(5))
        if st["status"] == "playing":
            left = st["view"]["redeals_left"]
            await page.click("button.redeal")
            assert "Redeal?" in await page.locator(".confirm").inner_text()
            await page.click(".confirm .no")
            assert await page.locator(".confirm").count() == 0
            await page.click("button.redeal")
            await page.click(".confirm .yes")
            st = await wait_seq(page, st["seq"] + 1)
            assert st["view"]["redeals_left"] == left - 1
            assert st["progress"]["redeals_used"] == 1
        await page.wait_for_timeout(600)  # the standings push after the redeal
        await shot(page, "gaps")
        await no_errors(errors)
    finally:
        proc.stop()


async def test_standings_follow_a_bot_and_a_visitor_watches(browser: Any, server: Running) -> None:
    t = await create(server, name="Bots and people")
    base = server.http
    page = await new_page(browser)
    await register(page, base, "watcher")
    await page.goto(f"{base}/t/{t['id']}")
    await page.click("button.join")
    await wait_seq(page, 0)
    await page.locator(".standings tr[data-player='watcher']").wait_for()
    bot = asyncio.create_task(
        play_bot(server.ws_url, t["id"], "botty", strategy="greedy", think_ms=40, seed=3)
    )
    row = page.locator(".standings tr[data-player='botty']")
    await row.wait_for(timeout=10_000)
    first = await row.locator("td").nth(3).inner_text()
    await page.wait_for_function(
        "([sel, first]) => { const r = document.querySelector(sel);"
        " return r && r.children[3].textContent !== first; }",
        arg=[".standings tr[data-player='botty']", first],
        timeout=20_000,
    )
    assert "2 entrants" in await page.locator(".standings").inner_text()

    # a visitor without an account watches the same standings, pushed live
    visitor = await new_page(browser)
    await visitor.goto(f"{base}/t/{t['id']}")
    await visitor.locator(".notice", has_text="You are watching").wait_for()
    assert await visitor.evaluate("localStorage.getItem('samedeal.token')") is None
    text = visitor.locator(".standings")
    await text.locator("tr[data-player='botty']").wait_for(timeout=10_000)
    result = await bot
    assert result.status in ("won", "lost"), result
    await visitor.wait_for_function(
        "(s) => document.querySelector(\".standings tr[data-player='botty'] .status\")"
        ".textContent.includes(s)",
        arg=result.status.replace("_", " "),
        timeout=10_000,
    )


async def test_klondike_click_drag_draw_auto_hint(browser: Any, server: Running) -> None:
    t = await create(
        server, name="Klondike night", game="klondike", options={"draw": 1, "hints": True}
    )
    base = server.http
    errors: list[str] = []
    page = await new_page(browser, errors)
    await register(page, base, "kim")
    await page.goto(f"{base}/t/{t['id']}")
    await page.click("button.join")
    st = await wait_seq(page, 0)
    view = st["view"]
    # face-down cards are backs only: as many as the view counts, and no card code on them
    downs = sum(col["down"] for col in view["tableau"])
    assert downs == 21
    assert await page.locator(".tableau .card.back").count() == downs
    assert await page.locator(".tableau .card.back[data-card]").count() == 0
    await page.click("button.hint")
    await page.locator(".message", has_text=re.compile("hint|No moves")).wait_for()
    await page.click(".pile.stock")
    st = await wait_seq(page, 1)
    assert st["view"]["waste_count"] == 1
    clicked = dragged = 0
    rnd = random.Random(1)
    for _ in range(120):
        if clicked and dragged:
            break
        view = st["view"]
        action = klondike_choice(view, rnd)
        seq = st["seq"]
        if action["kind"] == "move":
            src, dst, count = action["from"], action["to"], action.get("count", 1)
            if src == "waste":
                source = page.locator(".pile.waste button.card")
            else:
                col = view["tableau"][int(src[1])]
                code = col["up"][len(col["up"]) - count]
                source = page.locator(f'.column[data-place="{src}"] .card[data-card="{code}"]')
            target = page.locator(f'[data-place="{dst}"]')
            if dragged <= clicked:
                await source.drag_to(target)
                dragged += 1
            else:
                await source.click()
                await page.locator(".card.selected").first.wait_for()
                if dst.startswith("t") and view["tableau"][int(dst[1])]["up"]:
                    up = view["tableau"][int(dst[1])]["up"]
                    await page.click(f'.column[data-place="{dst}"] .card[data-card="{up[-1]}"]')
                else:
                    await target.click()
                clicked += 1
        elif action["kind"] == "draw":
            await page.click("button.draw")
        else:
            break
        st = await wait_seq(page, seq + 1)
    assert clicked and dragged, (clicked, dragged)
    await page.keyboard.press("a")  # auto: accepted or refused, the page says which
    await page.wait_for_timeout(300)
    await shot(page, "klondike")
    await no_errors(errors)


async def test_replay_and_verify_a_closed_tournament(
    browser: Any, server: Running, tmp_path: Path
) -> None:
    t = await create(server, name="Closed Gaps")
    k = await create(server, name="Closed Klondike", game="klondike", options={"draw": 3})
    base = server.http
    bots = [
        play_bot(server.ws_url, t["id"], f"g{i}", strategy="greedy", seed=i) for i in range(3)
    ] + [play_bot(server.ws_url, k["id"], f"k{i}", seed=i, max_actions=60) for i in range(2)]
    results = await asyncio.gather(*bots)
    assert all(r.actions for r in results)
    await close(server, t["id"])
    await close(server, k["id"])
    errors: list[str] = []
    page = await new_page(browser, errors)

    # the closed tournament's page: final standings, replays, the bundle verified here
    await page.goto(f"{base}/t/{t['id']}")
    await page.locator(".standings .tag.final").wait_for()
    await page.click("button.verify-here")
    verdict = page.locator(".verdict")
    await verdict.wait_for(timeout=30_000)
    assert await verdict.get_attribute("data-verdict") == "ok", await page.locator(
        ".lines"
    ).inner_text()
    lines = await page.locator(".lines").inner_text()
    assert "standings: 3 rows follow from the results" in lines

    # the replay of a Gaps record: step by step and from redeal to redeal
    await page.click(".replays a >> nth=0")
    await page.locator(".replay-controls").wait_for()
    step = page.locator(".step")
    assert (await step.get_attribute("data-step")) == "0"
    await page.click("button.next")
    assert (await step.get_attribute("data-step")) == "1"
    await page.keyboard.press("End")
    last = int(await step.get_attribute("data-step"))
    assert last > 1
    await page.click("button.prev-redeal")
    assert int(await step.get_attribute("data-step")) < last
    await page.click("button.first")
    await page.click("button.next-redeal")
    mid = await step.inner_text()
    assert "after redeal 1" in mid or "status" in mid
    await page.click("button.prev")
    await shot(page, "replay")
    assert await page.locator(".gaps-grid .cell").count() == 52

    # a Klondike replay
    await page.goto(f"{base}/t/{k['id']}/replay/k0")
    await page.locator(".klondike").wait_for()
    await page.keyboard.press("End")
    assert int(await step.get_attribute("data-step")) == results[3].actions

    # the verify page: a good bundle, then a tampered one, with the Python verifier's words
    status, body = await asyncio.to_thread(http_get, f"{base}/tournaments/{t['id']}/bundle.json")
    assert status == 200
    bundle = json.loads(body)
    good = tmp_path / "good.json"
    good.write_text(json.dumps(bundle))
    bad = copy.deepcopy(bundle)
    bad["records"][0]["result"]["progress"] += 1
    bad_file = tmp_path / "tampered.json"
    bad_file.write_text(json.dumps(bad))
    await page.goto(f"{base}/verify")
    await page.set_input_files("#file", str(good))
    await page.locator(".verdict[data-verdict='ok']").wait_for(timeout=30_000)
    await page.set_input_files("#file", str(bad_file))
    await page.locator(".verdict[data-verdict='fail']").wait_for(timeout=30_000)
    expected = verify_document(bad).error
    assert expected and f"FAIL {expected}" in await page.locator(".lines").inner_text()
    await shot(page, "verify")
    junk = tmp_path / "junk.json"
    junk.write_text("{nope")  # not JSON: one line saying why, as samedeal verify says it
    await page.set_input_files("#file", str(junk))
    await page.locator(".verdict[data-verdict='unreadable']").wait_for(timeout=30_000)
    said = (await page.locator(".lines").inner_text()).strip()
    assert said.startswith("unreadable: junk.json: ") and "\n" not in said, said
    await no_errors(errors)


async def test_restart_reconnects_and_resends_the_action_in_flight(
    browser: Any, tmp_path: Path
) -> None:
    """A real server process killed and started again: the offline banner shows, the move
    made while offline goes out with its seq once the server is back, the game resumes."""
    url = f"sqlite+aiosqlite:///{tmp_path / 'restart.db'}"
    done = cli(url, "tournament", "create", "--json", "--name", "Restart Gaps", "--hours", "1")
    assert done.returncode == 0, done.stderr
    tid = json.loads(done.stdout)["id"]
    server = Killable(url, free_port(), tmp_path / "killable.log")
    server.start()
    base = f"http://127.0.0.1:{server.port}"
    try:
        page = await new_page(browser)
        await register(page, base, "phoenix")
        await page.goto(f"{base}/t/{tid}")
        await page.click("button.join")
        await wait_seq(page, 0)
        await page.keyboard.press("Enter")
        st = await wait_seq(page, 1)
        server.kill()
        await page.locator("#banner", has_text="Offline").wait_for(timeout=10_000)
        st_before = await state(page)
        if st_before["view"]["legal"]:
            await page.keyboard.press("Enter")  # in flight: sent again after the reconnect
        await asyncio.sleep(0.5)
        server.start()
        await page.locator("#banner").wait_for(state="hidden", timeout=30_000)
        expect = st["seq"] + (1 if st_before["view"]["legal"] else 0)
        st = await wait_seq(page, expect, timeout=30_000)
        assert st["seq"] == expect
        # the server agrees: the game resumed where the browser is
        await page.reload()
        again = await wait_seq(page, expect)
        assert again["seq"] == expect and again["log_hash"] == st["log_hash"]
        await page.keyboard.press("Enter")
        if again["view"]["legal"]:
            await wait_seq(page, expect + 1)
    finally:
        server.stop()
