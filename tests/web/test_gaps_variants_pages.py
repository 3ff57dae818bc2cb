"""The Gaps family variants (RULES-GAPS.md v1.4) in headless Chromium: the rules page
with each variant's worked example from the vectors, as a reader meets it on a desktop
and a phone."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.support.harness import Running
from tests.web.conftest import shot
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
