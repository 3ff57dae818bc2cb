"""The analysis room (/t/ID/analysis, server/web/analysis.js) and the par on the replay
page, in headless Chromium, on real tournaments: players (a signed-in browser player and
bots) play different lines, an admin closes, the room reads the published bundle. Without
par (the server's par step kept idle) the lines are compared with the best line found
(the top-ranked entry's); with par (computed by the server's par step after the close,
as in production, and verified) with the viewer's par. At 1280×900 and 390×844 nothing
scrolls sideways."""

from __future__ import annotations

import asyncio
import json
import random
import time
from typing import Any

import pytest

from client_cli.bots import gaps_choice, play_bot
from server.audit.verify import verify_document
from server.competition.par import ParStep
from server.domain.ratings import percentile
from tests.support.harness import Running, http_get
from tests.web.conftest import close, create, register, shot, state, wait_seq
from tests.web.test_first_contact import SIZES, page_at, sideways

VIEWER = "vera"


async def play_in_browser(page: Any, base: str, tournament: int, moves: int) -> None:
    """The signed-in viewer joins and makes `moves` random moves by clicking."""
    await page.goto(f"{base}/t/{tournament}")
    await page.click("button.join")
    st = await wait_seq(page, 0)
    rnd = random.Random(5)
    for _ in range(moves):
        if not st["view"]["legal"]:
            break
        action = gaps_choice(st["view"], "random", rnd)
        r, c = action["to"]
        if c == 0:
            await page.click(f'.gaps-grid [data-row="{r}"][data-col="{c}"]')
        await page.click(f'.gaps-grid button.card[data-card="{action["card"]}"]')
        st = await wait_seq(page, st["seq"] + 1)
    assert (await state(page))["seq"] >= 1


async def closed_tournament(server: Running, page: Any) -> dict[str, Any]:
    """A Gaps tournament the viewer (signed in on `page`) and three bots played, closed;
    its bundle as served."""
    t = await create(server, name="Analysed Gaps")
    await register(page, server.http, VIEWER)
    await play_in_browser(page, server.http, t["id"], 6)
    bots = [
        play_bot(server.ws_url, t["id"], f"greedy{i}", strategy="greedy", seed=i) for i in (1, 2)
    ] + [play_bot(server.ws_url, t["id"], "rando", strategy="random", seed=3, max_actions=30)]
    await asyncio.gather(*bots)
    await close(server, t["id"])
    status, body = await asyncio.to_thread(
        http_get, f"{server.http}/tournaments/{t['id']}/bundle.json"
    )
    assert status == 200
    bundle: dict[str, Any] = json.loads(body)
    assert len(bundle["records"]) == 4
    return bundle


def _records(bundle: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {r["player"]["name"]: r for r in bundle["records"]}


def expected_parting(mine: list[Any], best: list[Any], shared: bool) -> tuple[str, int | None]:
    """What the room must say: ("left", step), ("redeal", step), ("same", None|step)."""
    for k, (a, b) in enumerate(zip(mine, best, strict=False)):
        if a != b:
            return "left", k + 1
        if not shared and a["kind"] == "redeal":
            return "redeal", k + 1
    return "same", None if len(mine) == len(best) else min(len(mine), len(best)) + 1


def expected_percentile(bundle: dict[str, Any], name: str) -> tuple[int, int, str]:
    """Rank, ranked entries and the percentile as the player page gives it."""
    ranked = [r for r in bundle["standings"] if r["rank"] is not None]
    me = next(r for r in ranked if r["player"] == name)
    return me["rank"], len(ranked), f"{percentile(me['rank'], len(ranked)):g}"


async def check_room(
    page: Any, bundle: dict[str, Any], ref_line: list[Any], ref_owner: str, shared: bool
) -> None:
    """The room as the viewer sees it: the deal, the first moves, the percentile, where the
    viewer's line left the reference, and every column stepping together."""
    records = _records(bundle)
    mine = [a["action"] for a in records[VIEWER]["actions"]]
    await page.locator(".lines-grid .line-col").first.wait_for(timeout=30_000)
    assert await page.locator(".deal-room .gaps-grid .cell").count() == 52
    ref_col = page.locator(".line-col.ref")
    assert await ref_col.get_attribute("data-player") == ref_owner
    assert await page.locator(f'.line-col[data-player="{VIEWER}"] .tag.you').count() == 1

    firsts: dict[str, int] = {}
    for r in bundle["records"]:
        if r["actions"]:
            key = json.dumps(r["actions"][0]["action"], sort_keys=True)
            firsts[key] = firsts.get(key, 0) + 1
    counts = [
        int(c)
        for c in await page.locator(".first-move").evaluate_all(
            "(els) => els.map((e) => e.dataset.count)"
        )
    ]
    assert counts == sorted(firsts.values(), reverse=True)
    assert await page.locator(".first-move .tag.you").count() == 1
    ref_first = json.dumps(ref_line[0], sort_keys=True)
    assert await page.locator(".first-move .tag.par").count() == (ref_first in firsts)
    assert await page.locator(".ref-first").count() == (ref_first not in firsts)

    rank, of, pct = expected_percentile(bundle, VIEWER)
    assert (
        f"rank {rank} of {of} · percentile {pct}:" in await page.locator(".percentile").inner_text()
    )

    kind, step = expected_parting(mine, ref_line, shared)
    parting = page.locator(".parting")
    if kind == "left":
        assert await parting.locator(".left-at").get_attribute("data-step") == str(step)
    elif kind == "redeal":
        assert f"up to the redeal at step {step}" in await parting.inner_text()
    else:
        assert (
            "followed" in await parting.inner_text()
            or "action for action" in await parting.inner_text()
        )
    go = parting.locator("button.go-step")
    if await go.count():
        target = int(await go.get_attribute("data-go"))
        await go.click()
        assert await page.locator(".lines-room .step").get_attribute("data-step") == str(target)
        assert await page.locator(f'.line-col[data-player="{VIEWER}"].parted').count() == (
            kind == "left"
        )

    # stepping together: every column at min(step, its length), to the end and back
    def length(player: str, is_ref: bool) -> int:
        return len(ref_line) if is_ref else len(records[player]["actions"])

    for key, at in (("End", None), ("Home", 0), ("ArrowRight", 1)):
        await page.keyboard.press(key)
        step = int(await page.locator(".lines-room .step").get_attribute("data-step"))
        shown = await page.locator(".line-col").evaluate_all(
            "(els) => els.map((e) => [e.dataset.player, Number(e.dataset.shown),"
            " e.classList.contains('ref')])"
        )
        assert shown[0][0] == ref_owner and shown[0][2]
        assert VIEWER in [p for p, _, is_ref in shown if not is_ref]
        lengths = [length(p, is_ref) for p, _, is_ref in shown]
        assert step == (max(lengths) if at is None else at)
        assert [n for _, n, _ in shown] == [min(step, n) for n in lengths]


@pytest.mark.usefixtures("no_par_job")
async def test_analysis_room_without_par_compares_with_the_best_line_found(
    browser: Any, server: Running
) -> None:
    errors: list[str] = []
    page = await page_at(browser, "desktop", errors)
    bundle = await closed_tournament(server, page)
    tid = bundle["tournament"]["id"]
    assert all("par" not in r for r in bundle["records"])
    top = min((r for r in bundle["standings"] if r["rank"] is not None), key=lambda r: r["rank"])
    assert top["player"] != VIEWER  # six random moves against greedy bots
    best = [a["action"] for a in _records(bundle)[top["player"]]["actions"]]

    # from the closed tournament's page, its link
    await page.goto(f"{server.http}/t/{tid}")
    await page.click("a.to-analysis")
    await page.wait_for_url(f"**/t/{tid}/analysis")
    about = await page.locator(".about-ref").inner_text()
    assert f"best line found among the players, that of {top['player']} (#1)." in about
    assert await page.locator(".line-col.ref .tag.par").inner_text() == "best found"
    assert await page.locator("select.add-line").count() == 0  # all four lines are shown
    await check_room(page, bundle, best, top["player"], shared=False)
    await page.locator(f'.line-col[data-player="{VIEWER}"]').wait_for()
    for size in SIZES:
        await page.set_viewport_size(dict(zip(("width", "height"), SIZES[size], strict=True)))
        await page.goto(f"{server.http}/t/{tid}/analysis")
        await page.locator(".lines-grid .line-col").first.wait_for(timeout=30_000)
        if await page.locator(".parting button.go-step").count():
            await page.click(".parting button.go-step")
        assert await sideways(page) == 0, size
        await shot(page, f"{size}-analysis")

    # the replay page says there is no par yet and links the room
    await page.goto(f"{server.http}/t/{tid}/replay/{VIEWER}")
    await page.locator(".replay-controls").wait_for()
    assert "par: not computed" in await page.locator(".par-line").inner_text()
    assert await page.locator("button.show-par").count() == 0
    await page.click("a.to-analysis")
    await page.locator(".lines-grid").wait_for(timeout=30_000)
    assert not errors, errors


@pytest.fixture
def no_par_job(monkeypatch: pytest.MonkeyPatch) -> None:
    """The server's close-time par step (server/competition/par.py) kept idle: the room
    without par stays without."""
    monkeypatch.setattr(ParStep, "wake", lambda self: None)


async def with_pars(server: Running, tid: int) -> dict[str, Any]:
    """The bundle once the server's par step has given every record its par (a
    generous deadline: the machine is shared)."""
    deadline = time.monotonic() + 240
    url = f"{server.http}/tournaments/{tid}/bundle.json"
    while True:
        status, body = await asyncio.to_thread(http_get, url)
        assert status == 200, body
        bundle: dict[str, Any] = json.loads(body)
        if all(r.get("par") for r in bundle["records"]):
            return bundle
        assert time.monotonic() < deadline, "no par within 240 s of the close"
        await asyncio.sleep(0.2)


async def test_analysis_room_and_replay_with_par(browser: Any, server: Running) -> None:
    errors: list[str] = []
    page = await page_at(browser, "desktop", errors)
    tid = (await closed_tournament(server, page))["tournament"]["id"]
    bundle = await with_pars(server, tid)
    assert verify_document(bundle).error is None  # every par line replays to its claim
    mine = _records(bundle)[VIEWER]
    par = mine["par"]
    assert par["line"] and par["progress"] >= mine["result"]["progress"]

    await page.goto(f"{server.http}/t/{tid}/analysis")
    await page.locator(".lines-grid .line-col").first.wait_for(timeout=30_000)
    about = await page.locator(".about-ref").inner_text()
    assert f"compared with the par of {VIEWER} (#" in about and "own redeal cards" in about
    assert await page.locator(".line-col.ref .tag.par").inner_text() == "par"
    await check_room(page, bundle, par["line"], VIEWER, shared=True)
    await shot(page, "desktop-analysis-par")

    # the replay page: the entry's par, and its line stepped through to that par
    await page.goto(f"{server.http}/t/{tid}/replay/{VIEWER}")
    text = await page.locator(".par-line strong").inner_text()
    resets = f"{par['resets']} redeal{'' if par['resets'] == 1 else 's'}"
    assert text.startswith(f"par: {par['progress']} in place, {resets}")
    await page.click("button.show-par")
    await page.locator("h1 .tag.par").wait_for()
    await page.keyboard.press("End")
    step = page.locator(".step")
    assert await step.get_attribute("data-step") == str(len(par["line"]))
    figures = await page.locator(".figures").inner_text()
    assert f"in place {par['progress']}/48 · redeals used {par['resets']}" in figures
    assert await page.locator(".receipt").count() == 0  # a par line has no receipts
    await shot(page, "replay-par")
    await page.set_viewport_size(dict(zip(("width", "height"), SIZES["phone"], strict=True)))
    assert await sideways(page) == 0
    await shot(page, "phone-replay-par")
    await page.click("button.show-par")
    await page.keyboard.press("End")
    assert await step.get_attribute("data-step") == str(len(mine["actions"]))
    assert not errors, errors


@pytest.mark.usefixtures("no_par_job")
async def test_analysis_room_for_a_visitor_before_and_after_a_klondike_close(
    browser: Any, server: Running
) -> None:
    """Before the close the room says it opens after it; after, a visitor (not signed in)
    sees a Klondike deal, the lines against the best line found, and no "you"."""
    errors: list[str] = []
    page = await page_at(browser, "phone", errors)
    k = await create(server, name="Analysed Klondike", game="klondike", options={"draw": 1})
    await page.goto(f"{server.http}/t/{k['id']}/analysis")
    said = await page.locator("p.error").inner_text()
    assert "opens after the close" in said and "no such tournament, or not closed yet" in said
    assert all("404" in e for e in errors)  # the bundle's fetch, refused before the close
    errors.clear()
    bots = [play_bot(server.ws_url, k["id"], f"k{i}", seed=i, max_actions=8 + i) for i in range(8)]
    await asyncio.gather(*bots)
    await close(server, k["id"])
    status, body = await asyncio.to_thread(
        http_get, f"{server.http}/tournaments/{k['id']}/bundle.json"
    )
    assert status == 200
    bundle = json.loads(body)
    top = min((r for r in bundle["standings"] if r["rank"] is not None), key=lambda r: r["rank"])
    for size in ("phone", "desktop"):
        await page.set_viewport_size(dict(zip(("width", "height"), SIZES[size], strict=True)))
        await page.goto(f"{server.http}/t/{k['id']}/analysis")
        await page.locator(".lines-grid .line-col").first.wait_for(timeout=30_000)
        assert await page.locator(".deal-room .klondike").count() == 1
        assert "Sign in" in await page.locator(".you-room").inner_text()
        players = await page.locator(".line-col").evaluate_all(
            "(els) => els.map((e) => e.dataset.player)"
        )
        assert players[0] == top["player"] and len(set(players)) == len(players) == 6
        # the two lines not shown are offered, best ranked first; one is added at the step
        picker = page.locator("select.add-line")
        offered = (await picker.locator("option").all_inner_texts())[1:]
        ranks = {r["player"]: r["rank"] for r in bundle["standings"]}
        rest = sorted((n for n in ranks if n not in players), key=lambda n: (ranks[n], n))
        assert offered == [f"#{ranks[n]} {n}" for n in rest]
        await picker.select_option(rest[-1])
        await page.locator(f'.line-col[data-player="{rest[-1]}"]').wait_for()
        await page.keyboard.press("End")
        shown = await page.locator(".line-col").evaluate_all(
            "(els) => els.map((e) => [e.dataset.player, Number(e.dataset.shown)])"
        )
        lengths = {r["player"]["name"]: len(r["actions"]) for r in bundle["records"]}
        assert shown == [[p, lengths[p]] for p in [*players, rest[-1]]]
        assert await sideways(page) == 0, size
    assert not errors, errors
