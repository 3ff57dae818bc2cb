"""Clubs in headless Chromium (issue 40 items 5 and 6): at a phone's 390×844 a player
creates a club and sees its code, a second joins with it, the owner names a leader and
removes a member, the new leader sees the code and makes a new one (the old one dies),
and nothing scrolls sideways; at 1280×900 a fourth club is refused
as the quota it is (its words, not "slow down") and the page does not send it again, the
page's clock run on by Playwright, not slept on; the pages in the pseudo-language speak
only through the catalogue; a member's lobby lists the club's unlisted event, entered
with its code; a battle's club table stands beside the players' rows, and a member of two
battling clubs chooses which to play for. One server and one
browser for the module."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import pytest_asyncio

from tests.support.harness import Running, running_server
from tests.web.conftest import RealClock, shot
from tests.web.support import CHROMIUM_ARGS, require_chromium
from tests.web.test_first_contact import page_at, sideways
from tests.web.test_i18n_browser import untranslated
from tests.web.test_phone_routes import cut_cells

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def env(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[tuple[Running, Any]]:
    url = f"sqlite+aiosqlite:///{tmp_path_factory.mktemp('clubs') / 'samedeal.db'}"
    executable = require_chromium()
    from playwright.async_api import async_playwright

    clock = RealClock()
    async with running_server(url, clock, tick=True) as running, async_playwright() as pw:  # type: ignore[arg-type]
        browser = await pw.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        try:
            yield running, browser
        finally:
            await browser.close()


async def signed_up(browser: Any, server: Running, size: str, name: str, errors: list[str]) -> Any:
    page = await page_at(browser, size, errors)
    await page.goto(server.http + "/")
    await page.fill("#reg-name", name)
    await page.click("form.register button")
    await page.wait_for_selector(".signout")
    return page


async def token_of(page: Any) -> str:
    return str(json.loads(await page.evaluate("localStorage.getItem('samedeal.token')")))


async def test_a_club_made_joined_and_led_on_a_phone(env: tuple[Running, Any]) -> None:
    server, browser = env
    errors: list[str] = []
    ana = await signed_up(browser, server, "phone", "Ana_Clube", errors)
    await ana.click("header nav a[href='/clubs']")
    await ana.fill("#club-new-name", "Xadrez_de_Sexta_Feira_à_noite_1")
    await ana.fill("#club-new-description", "Partidas às sextas-feiras, com café e paciência.")
    await ana.click("form.club-create button")
    await ana.wait_for_url(re.compile(r"/clubs/\d+$"))
    club_id = int(ana.url.rsplit("/", 1)[1])
    code = (await ana.locator("code.invite").inner_text()).strip()
    assert re.fullmatch(r"[A-Za-z0-9]{8,}", code), code
    assert await ana.locator("h1 .role-owner").count() == 1
    assert await sideways(ana) == 0
    await shot(ana, "club-phone-owner")

    bea = await signed_up(browser, server, "phone", "Beatriz", errors)
    await bea.goto(server.http + "/clubs")
    await bea.fill("#club-code", code)
    await bea.click("form.club-join button")
    await bea.wait_for_url(f"**/clubs/{club_id}")
    await bea.locator("li.member.me[data-member='Beatriz']").wait_for()
    assert await bea.locator("code.invite").count() == 0  # a member is never shown it
    assert await bea.locator("button.leave").count() == 1
    async with server.client() as caio:
        await caio.ok(type="register", name="Caio")
        await caio.ok(type="join_club", code=code)

    await ana.reload()
    caio_row = ana.locator("li.member[data-member='Caio']")
    await caio_row.wait_for()
    assert await ana.locator("section.club-members .count").inner_text() == "3"
    await ana.click("li.member[data-member='Beatriz'] button.set-leader")
    await ana.locator("li.member[data-member='Beatriz'] .role-leader").wait_for()
    await caio_row.locator("button.kick").click()
    await caio_row.locator("button.kick-yes").click()
    await caio_row.wait_for(state="detached")
    assert await ana.locator("section.club-members .count").inner_text() == "2"
    assert await sideways(ana) == 0
    await shot(ana, "club-phone-leader-tools")

    await bea.reload()  # now a leader: the code shown, no tool on the owner
    assert (await bea.locator("code.invite").inner_text()).strip() == code
    assert await bea.locator("li.member[data-member='Ana_Clube'] button").count() == 0
    await bea.click("section.club-invite button.new-invite")
    await bea.click("section.club-invite button.new-invite-yes")
    await bea.wait_for_function(
        "(old) => { const c = document.querySelector('code.invite');"
        " return c && c.textContent.trim() !== old; }",
        arg=code,
    )
    async with server.client() as dan:  # the old code died at once
        await dan.ok(type="register", name="Dan")
        assert (await dan.req(type="join_club", code=code))["code"] == "not_found"
    await bea.goto(server.http + "/clubs")
    await bea.locator(f"section.my-clubs li[data-club='{club_id}']").wait_for()
    assert await sideways(bea) == 0
    assert not errors, errors


async def test_a_quota_is_said_as_such_and_not_sent_again(env: tuple[Running, Any]) -> None:
    server, browser = env
    errors: list[str] = []
    page = await signed_up(browser, server, "desktop", "Dona_de_tres", errors)
    async with server.client() as c:
        await c.ok(type="auth", token=await token_of(page))
        for i in range(3):
            await c.ok(type="create_club", name=f"Clube_{i}")
    sent: list[dict[str, Any]] = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda f: sent.append(json.loads(f))))
    await page.clock.install()
    await page.goto(server.http + "/clubs")
    await page.locator("section.my-clubs li.club-item").nth(2).wait_for()
    await page.fill("#club-new-name", "Quarto")
    await page.click("form.club-create button")
    quota = page.locator(".club-msg.quota[data-limit='clubs_owned']")
    await quota.wait_for()
    assert await quota.inner_text() == (
        "You own 3 clubs, the most a player may: hand one over before creating another."
    )
    await page.clock.run_for(30_000)  # a flood's "slow down" would have gone again by now
    assert [m["name"] for m in sent if m.get("type") == "create_club"] == ["Quarto"]
    assert await sideways(page) == 0
    await shot(page, "clubs-desktop-quota")
    assert not errors, errors


async def test_club_pages_speak_only_through_the_catalogue(env: tuple[Running, Any]) -> None:
    server, browser = env
    errors: list[str] = []
    page = await signed_up(browser, server, "desktop", "Owner_XA", errors)
    async with server.client() as c:
        await c.ok(type="auth", token=await token_of(page))
        made = (await c.ok(type="create_club", name="Clube_XA"))["club"]
    async with server.client() as c:
        await c.ok(type="register", name="Member_XA")
        await c.ok(type="join_club", code=made["invite"])
    await page.evaluate("() => localStorage.setItem('samedeal.lang', 'en-XA')")
    names = ["Clube_XA", "Owner_XA", "Member_XA", "samedeal"]
    found = {}
    club = f"/clubs/{made['id']}"
    for path, ready in [(club, "li.member button.kick"), ("/clubs", ".club-item")]:
        await page.goto(server.http + path)
        await page.locator(ready).first.wait_for()
        if left := await untranslated(page, names):
            found[path] = left
    await page.goto(server.http + f"/clubs/{made['id']}")
    await page.click("li.member[data-member='Member_XA'] button.kick")  # the question asked
    if left := await untranslated(page, names):
        found["kick question"] = left
    assert not found, found
    assert not errors, errors


async def test_a_members_lobby_shows_the_club_event_joined_with_its_code(
    env: tuple[Running, Any],
) -> None:
    server, browser = env
    errors: list[str] = []
    leader = await signed_up(browser, server, "desktop", "Lider_Eventos", errors)
    member = await signed_up(browser, server, "phone", "Membro_Ev", errors)
    now = datetime.now(UTC)
    async with server.client() as c:
        await c.ok(type="auth", token=await token_of(leader))
        club = (await c.ok(type="create_club", name="Clube_Eventos"))["club"]
        made = await c.ok(
            type="create_tournament", name="Noite do clube", game="gaps", options={},
            starts_at=(now - timedelta(seconds=1)).isoformat(),
            ends_at=(now + timedelta(hours=1)).isoformat(),
            club=club["id"], visibility="unlisted", entry_code="SEGREDO1",
        )  # fmt: skip
    tid = made["tournament"]["id"]
    async with server.client() as c:
        await c.ok(type="auth", token=await token_of(member))
        await c.ok(type="join_club", code=club["invite"])
    await member.goto(server.http + "/")
    event = member.locator(f"section.club-events-lobby li.club-event[data-id='{tid}']")
    await event.wait_for()
    tags = await event.inner_text()
    assert "Clube_Eventos" in tags and "unlisted" in tags and "code needed" in tags
    assert await event.locator("code.entry-code").count() == 0  # a member is not shown it
    assert await sideways(member) == 0
    await leader.goto(server.http + f"/clubs/{club['id']}")
    shown = leader.locator(f"section.club-events li.club-event[data-id='{tid}'] code.entry-code")
    assert await shown.inner_text() == "SEGREDO1"  # the club's leader is
    await event.locator(f"a[href='/t/{tid}']").click()
    await member.fill("#entry-code", "ERRADO99")
    await member.click("button.join")
    await member.locator(".board p.error, p.error").first.wait_for()
    await member.fill("#entry-code", "SEGREDO1")
    await member.click("button.join")
    await member.wait_for_function("() => window.samedeal.state && window.samedeal.state.seq >= 0")
    assert await sideways(member) == 0
    assert not errors, errors
    await leaders_close_and_cancel(server, leader, member, club, tid, errors)


async def leaders_close_and_cancel(
    server: Running, leader: Any, member: Any, club: dict[str, Any], tid: int, errors: list[str]
) -> None:
    """On the club page its leader (not a member) closes its event and cancels its
    schedule, each asked first; the server's records say so."""
    async with server.client() as c:
        await c.ok(type="auth", token=await token_of(leader))
        weekly = (
            await c.ok(
                type="create_schedule", name="Semanal", game="gaps", options={},
                first_starts_at=(datetime.now(UTC) + timedelta(days=2)).isoformat(),
                every_s=7 * 86400, duration_s=3600, club=club["id"],
            )
        )["schedule"]  # fmt: skip
    await member.goto(server.http + f"/clubs/{club['id']}")
    await member.locator(f"section.club-events li.club-event[data-id='{tid}']").wait_for()
    assert await member.locator("button.close-event, button.cancel-schedule").count() == 0
    await leader.goto(server.http + f"/clubs/{club['id']}")
    row = leader.locator(f"section.club-events li.club-event[data-id='{tid}']")
    await row.locator("button.close-event").click()
    await row.locator("button.close-event-yes").click()
    await row.wait_for(state="detached")
    planned = leader.locator(f"li.club-schedule[data-schedule='{weekly['id']}']")
    await planned.locator("button.cancel-schedule").click()
    await planned.locator("button.cancel-schedule-yes").click()
    await planned.wait_for(state="detached")
    assert await sideways(leader) == 0
    async with server.client() as c:
        await c.ok(type="auth", token=await token_of(leader))
        listed = (await c.ok(type="tournaments"))["items"]
        assert [t["status"] for t in listed if t["id"] == tid] == ["closed"]
        schedules = (await c.ok(type="schedules"))["items"]
        assert [s["cancelled"] for s in schedules if s["id"] == weekly["id"]] == [True]
    assert not errors, errors


async def test_a_battle_shows_its_club_table_beside_the_players(env: tuple[Running, Any]) -> None:
    server, browser = env
    op = await server.admin("op_batalha")
    clubs = [(await op.ok(type="create_club", name=n))["club"] for n in ("Norte_FC", "Sul_FC")]
    now = datetime.now(UTC)
    made = await op.ok(
        type="create_tournament", name="Batalha", game="gaps", options={},
        starts_at=(now - timedelta(seconds=1)).isoformat(),
        ends_at=(now + timedelta(hours=1)).isoformat(),
        battle={"clubs": [c["id"] for c in clubs], "counted": 1},
    )  # fmt: skip
    battle = made["tournament"]
    for name, club in (("Ana_Norte", clubs[0]), ("Bia_Sul", clubs[1]), ("Caio_Sul", clubs[1])):
        async with server.client() as c:
            await c.ok(type="register", name=name)
            await c.ok(type="join_club", code=club["invite"])
            await c.ok(type="join", tournament=battle["id"])
    async with server.client() as c:
        table = (await c.ok(type="subscribe", tournament=battle["id"]))["clubs"]
    errors: list[str] = []
    page = await page_at(browser, "phone", errors)
    await page.goto(server.http + f"/t/{battle['id']}")
    await page.locator("section.standings tbody tr[data-player]").first.wait_for()
    rows = page.locator("section.club-standings tbody tr")
    assert [await r.get_attribute("data-club") for r in await rows.all()] == [
        str(c["club"]) for c in table
    ]
    assert [await r.locator(".club-score").inner_text() for r in await rows.all()] == [
        str(c["score"]) for c in table
    ]
    assert "Norte_FC" in await page.locator("section.club-standings").inner_text()
    assert await sideways(page) == 0
    assert not await cut_cells(page)  # the clubs' headings are not the players' columns
    await shot(page, "battle-phone")
    assert not errors, errors


async def test_a_member_of_two_battling_clubs_chooses_which_to_play_for(
    env: tuple[Running, Any],
) -> None:
    server, browser = env
    op = await server.admin("op_duelo")
    clubs = [(await op.ok(type="create_club", name=n))["club"] for n in ("Leste_FC", "Oeste_FC")]
    now = datetime.now(UTC)
    made = await op.ok(
        type="create_tournament", name="Duelo", game="gaps", options={},
        starts_at=(now - timedelta(seconds=1)).isoformat(),
        ends_at=(now + timedelta(hours=1)).isoformat(),
        battle={"clubs": [c["id"] for c in clubs], "counted": 1},
    )  # fmt: skip
    tid = made["tournament"]["id"]
    errors: list[str] = []
    page = await signed_up(browser, server, "phone", "Duas_Camisas", errors)
    async with server.client() as c:
        await c.ok(type="auth", token=await token_of(page))
        for club in clubs:
            await c.ok(type="join_club", code=club["invite"])
    await page.goto(server.http + f"/t/{tid}")
    choice = page.locator("select#join-club")
    await choice.wait_for()
    assert await choice.locator("option").all_inner_texts() == ["Leste_FC", "Oeste_FC"]
    await choice.select_option(str(clubs[1]["id"]))
    await page.click("button.join")
    await page.wait_for_function("() => window.samedeal.state && window.samedeal.state.seq >= 0")
    async with server.client() as c:
        rows = (await c.ok(type="standings_page", tournament=tid))["rows"]
    assert [(r["player"], r["club"]) for r in rows] == [("Duas_Camisas", clubs[1]["id"])]
    assert await sideways(page) == 0
    assert not errors, errors
