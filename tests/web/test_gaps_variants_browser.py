"""The Gaps family variants (RULES-GAPS.md v1.4) in headless Chromium, as players meet
them on a desktop and a phone: each variant's special rule played by clicking on a real
server (Montana's fixed 2s, Free Parking's card entering by its right neighbour's rule,
Addiction's redeal whose gaps are where the aces fell, then its replay naming each ace),
the variant named in words in the lobby and on the tournament's page, the operator's
variant select, and the rules page with each variant's worked example from the vectors."""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any

import pytest

from client_cli.bots import gaps_choice
from server import rng
from server.audit.verify import verify_document
from server.games import cards
from server.games.gaps_layout import ACES, COLS, GAP, ROWS, run_length
from tests.support.harness import Running, http_get
from tests.web.conftest import close, create, register, shot, state, wait_seq
from tests.web.support import ROOT
from tests.web.test_first_contact import SIZES, outside, page_at, sideways

VECTORS = json.loads((ROOT / "tests" / "data" / "gaps-variants-v1.json").read_text())


def _case(variant: str, seed_prefix: str) -> dict[str, Any]:
    return next(
        c
        for c in VECTORS["cases"]
        if c["variant"] == variant
        and c["seed"].startswith(seed_prefix)
        and c["options"]["redeal"] == "keep_runs"
    )


async def grid_of(board: Any) -> list[str]:
    """A board as the vectors write a layout: 4 rows of 13 codes or '--'."""
    return list(
        await board.evaluate(
            """(g) => [...g.querySelectorAll('.gaps-row')].map((row) =>
                 [...row.children].map((c) => c.dataset.card || '--').join(' '))"""
        )
    )


@pytest.mark.parametrize("size", list(SIZES))
async def test_the_rules_page_shows_each_variant_with_its_example(
    browser: Any, server: Running, size: str
) -> None:
    errors: list[str] = []
    page = await page_at(browser, size, errors)
    await page.goto(f"{server.http}/rules/gaps")
    await page.wait_for_selector("section.rule#free_parking .example .gaps-grid")
    for anchor in ("gaps", "montana", "addiction", "free_parking"):
        assert await page.locator(f"section.rule#{anchor} h2").count() == 1

    montana = page.locator("#montana .example figure")
    case = _case("montana", "0000")
    assert await grid_of(montana.nth(0).locator(".gaps-grid")) == case["initial_layout"]
    assert await grid_of(montana.nth(1).locator(".gaps-grid")) == case["moves"][0]["layout_after"]
    fixed = montana.nth(0).locator(".card.fixed")
    assert await fixed.count() == 4
    assert [await fixed.nth(i).get_attribute("data-card") for i in range(4)] == [
        "2C",
        "2D",
        "2H",
        "2S",
    ]

    free = page.locator("#free_parking .example figure")
    case = _case("free_parking", "e4c537b6")
    assert await grid_of(free.nth(0).locator(".gaps-grid")) == case["initial_layout"]
    assert await grid_of(free.nth(1).locator(".gaps-grid")) == case["moves"][0]["layout_after"]
    two_ways = free.nth(0).locator('.cell.gap[data-row="0"][data-col="6"]')
    assert await two_ways.get_attribute("data-ways") == "left right"
    label = await two_ways.get_attribute("aria-label")
    assert "9♥ (after its left neighbour) or J♦ (before its right neighbour)" in label

    addiction = page.locator("#addiction .example figure")
    game = next(
        g
        for c in VECTORS["cases"]
        for g in c["games"]
        if c["variant"] == "addiction" and g["seed"] == "0" * 64 and g["player_id"] == 1
        if g["options"]["redeal"] == "keep_runs"
    )
    after = await grid_of(addiction.nth(1).locator(".gaps-grid"))
    assert after == game["layouts_after_each_deal"][1]
    marked = addiction.nth(1).locator(".cell.gap.ace-gap")
    assert await marked.count() == 4
    aces = sorted([await marked.nth(i).get_attribute("data-ace") for i in range(4)])
    assert aces == ["AC", "AD", "AH", "AS"]
    assert await addiction.nth(0).locator(".cell.gap.dead").count() == 4

    assert await sideways(page) == 0
    assert await outside(page, ".example .gaps-row .cell") == []
    await shot(page, f"{size}-rules-gaps")
    assert not errors, errors


RANKS = "A23456789TJQK"


async def join_variant(
    browser: Any, server: Running, size: str, variant: str, name: str, errors: list[str]
) -> tuple[Any, dict[str, Any], dict[str, Any]]:
    """A tournament of `variant`, named in words in the lobby; a browser player joins it."""
    t = await create(server, name=f"{variant} night", options={"variant": variant})
    page = await page_at(browser, size, errors)
    await register(page, server.http, name)
    card = page.locator(f".tcard[data-id='{t['id']}']")
    await card.wait_for()
    words = {
        "montana": "Montana: the 2s pre-placed in the first column",
        "free_parking": "Free Parking: a gap also takes the card below its right neighbour",
        "addiction": "Addiction: a redeal's gaps are where the aces fall",
    }[variant]
    assert words in await card.locator(".meta").first.inner_text()
    await page.goto(f"{server.http}/t/{t['id']}")
    await page.click("button.join")
    st = await wait_seq(page, 0)
    assert words in await page.locator(".thead .meta").inner_text()
    assert await page.locator(".thead a.rules-link").get_attribute("href") == (
        f"/rules/gaps#{variant}"
    )
    return page, t, st


async def fits_the_screen(page: Any) -> None:
    assert await sideways(page) == 0
    assert await page.locator(".gaps-row").first.locator(".cell").count() == 13
    assert await outside(page, ".gaps-row .cell") == []


def in_place(grid: list[list[str | None]]) -> int:
    """The cards in place of a grid: each row's run 2, 3, 4 ... of one suit from its first
    column (the pre-placed 2s, and a 3 the random deal put right after its 2)."""
    total = 0
    for row in grid:
        suit = row[0][1] if row[0] and row[0][0] == "2" else None
        for rank, card in zip("23456789TJQK", row, strict=False):
            if suit is None or card != rank + suit:
                break
            total += 1
    return total


def gap_cells(view: dict[str, Any]) -> list[list[int]]:
    return [[r, c] for r, row in enumerate(view["grid"]) for c, x in enumerate(row) if x is None]


@pytest.mark.parametrize("size", list(SIZES))
async def test_montana_fixed_twos_and_a_move_by_click(
    browser: Any, server: Running, size: str
) -> None:
    errors: list[str] = []
    page, t, st = await join_variant(browser, server, size, "montana", f"mo_{size}", errors)
    column0 = [row[0] for row in st["view"]["grid"]]
    assert column0 == ["2C", "2D", "2H", "2S"]
    fixed = page.locator(".gaps-grid .card.fixed")
    assert await fixed.count() == 4
    for r, code in enumerate(column0):
        cell = page.locator(f'.gaps-grid [data-row="{r}"][data-col="0"]')
        assert await cell.get_attribute("data-card") == code
        assert "fixed" in (await cell.get_attribute("class")).split()
        assert (await cell.get_attribute("aria-label")).endswith(", fixed")
    assert st["progress"]["cards_in_place"] == in_place(st["view"]["grid"])  # 4, or more
    await fits_the_screen(page)
    await shot(page, f"{size}-montana")

    # a fixed 2 clicked: said so, nothing sent
    await page.click('.gaps-grid [data-row="2"][data-col="0"]')
    assert "2♥ is fixed" in await page.locator(".message").inner_text()
    assert (await state(page))["seq"] == 0

    # a row with its fixed 2 and a move: click the gap that takes one card
    move = next(
        m for m in st["view"]["legal"] if sum(x["to"] == m["to"] for x in st["view"]["legal"]) == 1
    )
    r, c = move["to"]
    await page.click(f'.gaps-grid [data-row="{r}"][data-col="{c}"]')
    st = await wait_seq(page, 1)
    assert st["view"]["grid"][r][c] == move["card"]
    assert [row[0] for row in st["view"]["grid"]] == column0
    assert await page.locator(".gaps-grid .card.fixed").count() == 4
    assert await page.locator(f'.gaps-grid .card.moved[data-card="{move["card"]}"]').count() == 1

    # after the close the replay and the analysis room apply Montana's deal
    await close(server, t["id"])
    await page.goto(f"{server.http}/t/{t['id']}/replay/mo_{size}")
    await page.wait_for_selector(".replay-controls")
    assert await page.locator(".gaps-grid .card.fixed").count() == 4
    await page.click("button.next")
    await page.wait_for_selector('p.step[data-step="1"]')
    assert await grid_of(page.locator(".gaps-grid")) == [
        " ".join(x or "--" for x in row) for row in st["view"]["grid"]
    ]
    await page.goto(f"{server.http}/t/{t['id']}/analysis")
    await page.wait_for_selector(".lines-grid .line-col .gaps-grid")
    assert await page.locator(".deal-room .card.fixed").count() == 4
    assert await page.locator(".deal-room .gaps-grid").get_attribute("data-variant") == "montana"
    assert "Montana: the 2s pre-placed" in await page.locator(".meta").first.inner_text()
    await fits_the_screen(page)
    assert not errors, errors


def right_rule_moves(view: dict[str, Any]) -> list[dict[str, Any]]:
    """The legal moves a gap allows only by free_parking's right-neighbour rule."""
    out = []
    for m in view["legal"]:
        r, c = m["to"]
        row = view["grid"][r]
        left = row[c - 1] if c else None
        right = row[c + 1] if c < COLS - 1 else None
        card = m["card"]
        after_left = (
            left and left[1] == card[1] and RANKS.index(card[0]) == RANKS.index(left[0]) + 1
        )
        before_right = (
            right and right[1] == card[1] and RANKS.index(card[0]) + 1 == RANKS.index(right[0])
        )
        if c and before_right and not after_left:
            out.append(m)
    return out


@pytest.mark.parametrize("size", list(SIZES))
async def test_free_parking_a_card_enters_by_its_right_neighbour(
    browser: Any, server: Running, size: str
) -> None:
    errors: list[str] = []
    page, _, st = await join_variant(browser, server, size, "free_parking", f"fp_{size}", errors)
    rnd = random.Random(3)
    for _ in range(60):  # a deal almost always has one; else play on until one appears
        if right_rule_moves(st["view"]):
            break
        other = gaps_choice(st["view"], "random", rnd)
        r, c = other["to"]
        if c == 0:
            await page.click(f'.gaps-grid [data-row="{r}"][data-col="0"]')
        await page.click(f'.gaps-grid button.card[data-card="{other["card"]}"]')
        st = await wait_seq(page, st["seq"] + 1)
    move = right_rule_moves(st["view"])[0]
    r, c = move["to"]
    gap = page.locator(f'.gaps-grid [data-row="{r}"][data-col="{c}"]')
    assert "right" in (await gap.get_attribute("data-ways")).split()
    label = await gap.get_attribute("aria-label")
    pretty = ("10" if move["card"][0] == "T" else move["card"][0]) + "♣♦♥♠"[
        "CDHS".index(move["card"][1])
    ]
    assert f"{pretty} (before its right neighbour)" in label
    assert await gap.locator(".way.by-right").count() == 1
    await fits_the_screen(page)
    await shot(page, f"{size}-free-parking")

    # select the gap, then click the card: it enters by the right neighbour's rule
    await gap.click()
    if sum(m["to"] == [r, c] for m in st["view"]["legal"]) == 2:  # the gap only got selected
        assert "before its right neighbour" in await page.locator(".message").inner_text()
        await page.click(f'.gaps-grid button.card[data-card="{move["card"]}"]')
    after = await wait_seq(page, st["seq"] + 1)
    assert after["view"]["grid"][r][c] == move["card"]
    assert after["view"]["grid"][r][c + 1] == st["view"]["grid"][r][c + 1]
    assert not errors, errors


def aces_after_redeal(
    seed: bytes, grid: list[list[str | None]], player_id: int, k: int
) -> dict[tuple[int, int], str]:
    """Where each ace falls in addiction's redeal k (RULES-GAPS.md v1.4, computed here from
    the rule's words): the runs kept, every other card and the 4 aces shuffled in canonical
    order with gaps/redeal/P/k, filled row-major into every cell not kept."""
    flat = [GAP if x is None else cards.parse(x) for row in grid for x in row]
    kept = {r * COLS + c for r in range(ROWS) for c in range(run_length(flat, r))}
    gathered = sorted([x for i, x in enumerate(flat) if x != GAP and i not in kept] + list(ACES))
    deck = iter(rng.shuffled(seed, rng.gaps_redeal_label(player_id, k), gathered))
    filled = [flat[i] if i in kept else next(deck) for i in range(ROWS * COLS)]
    return {
        divmod(i, COLS): cards.code(x) for i, x in enumerate(filled) if cards.rank(x) == cards.ACE
    }


@pytest.mark.parametrize("size", list(SIZES))
async def test_addiction_a_redeal_puts_the_gaps_where_the_aces_fell(
    browser: Any, server: Running, size: str
) -> None:
    errors: list[str] = []
    name = f"ad_{size}"
    page, t, st = await join_variant(browser, server, size, "addiction", name, errors)
    assert st["view"]["redeals_left"] == 3  # addiction's default
    token = await page.evaluate("JSON.parse(localStorage.getItem('samedeal.token'))")
    async with server.client() as c:  # the same player plays on to a block from a terminal
        me = await c.ok(type="auth", token=token)
        rnd = random.Random(7)
        for _ in range(500):
            if st["view"]["blocked"]:
                break
            act = gaps_choice(st["view"], "greedy", rnd)
            st = await c.ok(type="act", tournament=t["id"], seq=st["seq"] + 1, action=act)
    assert st["view"]["blocked"] and st["status"] == "playing"
    await page.reload()
    await page.wait_for_selector(".gaps-grid")
    blocked = (await state(page))["view"]
    assert await page.locator(".gaps-grid .cell.gap.dead").count() == 4

    await page.click("button.redeal")
    await page.click(".confirm .yes")
    after = await wait_seq(page, st["seq"] + 1)
    gaps = gap_cells(after["view"])
    shown = page.locator(".gaps-grid .cell.gap.ace-gap")
    assert await shown.count() == 4
    marked = await shown.evaluate_all("(els) => els.map((e) => [+e.dataset.row, +e.dataset.col])")
    assert sorted(marked) == sorted(gaps)
    assert "where an ace fell" in await shown.first.get_attribute("aria-label")
    assert "the aces were shuffled in" in await page.locator(".aces-fell").inner_text()
    await fits_the_screen(page)
    await shot(page, f"{size}-addiction-redeal")

    # after the close: the seed is revealed, the gaps are where the rule puts the aces,
    # and the replay names each ace at its gap
    await close(server, t["id"])
    async with server.client() as c:
        items = (await c.ok(type="tournaments"))["items"]
    seed = bytes.fromhex(next(x for x in items if x["id"] == t["id"])["seed"])
    aces = aces_after_redeal(seed, blocked["grid"], me["player"]["id"], 1)
    assert sorted(list(k) for k in aces) == sorted(gaps)
    # the served bundle: verified in the page, with the Python verifier's own lines
    status, body = await asyncio.to_thread(
        http_get, f"{server.http}/tournaments/{t['id']}/bundle.json"
    )
    assert status == 200
    bundle = json.loads(body)
    assert bundle["tournament"]["options"]["variant"] == "addiction"
    report = verify_document(bundle)
    assert report.ok, report.error
    await page.goto(f"{server.http}/t/{t['id']}")
    await page.click("button.verify-here")
    verdict = page.locator(".verdict")
    await verdict.wait_for(timeout=30_000)
    assert await verdict.get_attribute("data-verdict") == "ok"
    # par may be computed between the page's fetch of the bundle and this test's: its
    # lines aside, the two verifiers say the same
    shown = (await page.locator(".lines").inner_text()).splitlines()
    lines = [x for x in shown if "par line" not in x]
    assert lines[:-1] == [
        *(f"ok   {line}" for line in report.checked if "par line" not in line),
        *(f"note {line}" for line in report.notes),
        f"verified: tournament {t['id']} bundle",
    ]
    assert "acknowledged at seq" in lines[-1] and "in the bundle, unchanged" in lines[-1]
    await page.goto(f"{server.http}/t/{t['id']}/replay/{name}")
    await page.wait_for_selector(".replay-controls")
    await page.click("button.next-redeal")
    await page.wait_for_selector(".gaps-grid .cell.gap.ace-gap")
    seen = {
        (row, col): ace
        for row, col, ace in await page.locator(".gaps-grid .cell.gap.ace-gap").evaluate_all(
            "(els) => els.map((e) => [+e.dataset.row, +e.dataset.col, e.dataset.ace])"
        )
    }
    assert seen == aces
    assert "Addiction" in await page.locator(".aces-fell").inner_text()
    await fits_the_screen(page)
    await shot(page, f"{size}-replay-addiction")
    assert not errors, errors


async def test_the_operator_chooses_a_variant_from_a_select(browser: Any, server: Running) -> None:
    errors: list[str] = []
    page = await page_at(browser, "desktop", errors)
    await register(page, server.http, "vera_op")
    await server.app.store.set_admin("vera_op")
    await page.goto(f"{server.http}/operator")
    await page.wait_for_selector("form.op-tournament select#t-variant")
    offered = await page.locator("#t-variant option").evaluate_all(
        "(els) => els.map((e) => [e.value, e.textContent])"
    )
    assert [v for v, _ in offered] == ["gaps", "montana", "addiction", "free_parking"]
    assert "the aces fall" in dict(offered)["addiction"]
    await page.select_option("#t-game", "klondike")
    assert not await page.locator("#t-variant").is_visible()  # Klondike has no variant
    await page.select_option("#t-game", "gaps")
    assert await page.locator("#t-variant").is_visible()

    await page.fill("#t-name", "Addicted")
    await page.select_option("#t-variant", "addiction")
    await page.click("form.op-tournament button")
    await page.wait_for_selector(".op-msg.ok:has-text('created Addicted')")
    await page.fill("#t-name", "Parked")
    await page.select_option("#t-variant", "free_parking")
    await page.fill("#t-redeals", "1")
    await page.click("form.op-tournament button")
    await page.wait_for_selector(".op-msg.ok:has-text('created Parked')")
    await page.fill("#t-redeals", "")
    await page.select_option("#t-redeal", "reshuffle_all")
    await page.select_option("#t-variant", "montana")  # it would gather the fixed 2s
    assert await page.locator("#t-redeal").input_value() == "keep_runs"
    assert await page.locator("#t-redeal option[value='reshuffle_all']").is_disabled()
    assert await page.locator("#t-winnable").is_disabled()  # plain Gaps' search only

    await page.fill("#s-name", "Daily Montana")
    await page.fill("#s-first", "2099-01-01T18:00")
    await page.select_option("#s-variant", "montana")
    await page.click("form.op-schedule button")
    await page.wait_for_selector(".op-msg.ok:has-text('scheduled Daily Montana')")
    await shot(page, "operator-variant")

    async with server.client() as c:
        items = {t["name"]: t for t in (await c.ok(type="tournaments"))["items"]}
        schedules = (await c.ok(type="schedules"))["items"]
    assert items["Addicted"]["options"]["variant"] == "addiction"
    assert items["Addicted"]["options"]["redeals"] == 3
    assert items["Parked"]["options"]["variant"] == "free_parking"
    assert items["Parked"]["options"]["redeals"] == 1
    assert "Refused" not in items
    assert next(s for s in schedules if s["name"] == "Daily Montana")["options"]["variant"] == (
        "montana"
    )
    await page.goto(f"{server.http}/")
    card = page.locator(".tcard", has_text="Parked")
    assert "Free Parking: a gap also takes" in await card.locator(".meta").first.inner_text()
    assert not errors, errors
