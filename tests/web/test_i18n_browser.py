"""The browser in the players' languages (issue 37), in headless Chromium: the language
chosen by the header's selector (remembered) over `?lang=` over the browser's languages;
plurals by CLDR (pt-BR says "0 participante", pt-PT "0 participantes"); every page walked
in the pseudo-language en-XA with no visible text left outside the catalogue; and, with
SAMEDEAL_I18N_SHOTS=FOLDER, the main pages' screenshots in pt-BR (390×844) and es
(1280×900). One server, one played tournament and one Chromium serve every test of the
module (`shared`): playing it is most of the time."""

from __future__ import annotations

import asyncio
import os
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from playwright.async_api import TimeoutError as PlaywrightTimeout

from tests.support.harness import Running, running_server
from tests.web.conftest import RealClock, create
from tests.web.support import CHROMIUM_ARGS, require_chromium
from tests.web.test_phone_routes import NAMES, routes, settled_sideways

pytestmark = pytest.mark.asyncio(loop_scope="module")

SHOTS = os.environ.get("SAMEDEAL_I18N_SHOTS")  # e.g. docs/screenshots


@dataclass
class Shared:
    """The module's server (its tournaments played once by `routes`) and Chromium."""

    server: Running
    browser: Any
    paths: list[str]
    winner: str
    token: str


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def shared(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Shared]:
    executable = require_chromium()
    from playwright.async_api import async_playwright

    url = f"sqlite+aiosqlite:///{tmp_path_factory.mktemp('i18n') / 'samedeal.db'}"
    async with running_server(url, RealClock(), tick=True) as server:  # type: ignore[arg-type]
        paths, winner, token = await routes(server)
        async with async_playwright() as pw:
            browser = await pw.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
            try:
                yield Shared(server, browser, paths, winner, token)
            finally:
                await browser.close()


async def context_page(
    browser: Any,
    locale: str = "en-US",
    width: int = 1280,
    height: int = 860,
    zone: str | None = None,
) -> Any:
    context = await browser.new_context(
        viewport={"width": width, "height": height}, locale=locale, timezone_id=zone
    )
    page = await context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(f"pageerror: {e}"))
    page.errors = errors
    return page


async def ready(page: Any, url: str) -> None:
    await page.goto(url)
    try:
        await page.wait_for_function("() => document.body.dataset.ready === '1'", timeout=30_000)
    except PlaywrightTimeout as exc:
        raise AssertionError(f"{url} never ready: {page.errors}") from exc


IN_APP = """(path) => { document.body.dataset.ready = '';
  history.pushState(null, '', path); dispatchEvent(new PopStateEvent('popstate')); }"""


async def visit(page: Any, base: str, path: str, load: bool = False) -> None:
    """The app's page at `path`, as a click on one of its links shows it (history.pushState
    and the app's router: the modules, the catalogue and the connection stay), or loaded
    anew when `load` (after localStorage changed) or when the page is elsewhere."""
    here = await page.evaluate("location.pathname") if page.url.startswith(base) else None
    if load or here is None or here == path.split("?")[0]:
        return await ready(page, base + path)
    await page.evaluate(IN_APP, path)
    try:
        await page.wait_for_function("() => document.body.dataset.ready === '1'", timeout=30_000)
    except PlaywrightTimeout as exc:
        raise AssertionError(f"{path} never ready: {page.errors}") from exc


async def html_lang(page: Any) -> str:
    return str(await page.evaluate("document.documentElement.lang"))


async def test_the_selector_wins_over_the_address_and_is_remembered(shared: Shared) -> None:
    server, browser = shared.server, shared.browser
    page = await context_page(browser, locale="pt-BR")
    await ready(page, server.http + "/")
    assert await html_lang(page) == "pt-BR"  # the browser's language
    assert await page.inner_text("header nav a[href='/']") == "Torneios"
    await ready(page, server.http + "/verify?lang=es")  # the address over the browser's
    assert await html_lang(page) == "es"
    assert await page.inner_text("header nav a[href='/verify']") == "Verificar"
    assert await page.title() == "Verificar un registro o un paquete · samedeal"  # the tab too
    assert await page.inner_text("header nav a[href='/']") == "Torneos"
    async with page.expect_navigation():
        await page.select_option("#lang", "pt-PT")  # the selector over the address
    await page.wait_for_function("() => document.body.dataset.ready === '1'")
    assert await html_lang(page) == "pt-PT"
    assert await page.evaluate("localStorage.getItem('samedeal.lang')") == "pt-PT"
    await ready(page, server.http + "/?lang=es")
    assert await html_lang(page) == "pt-PT"  # remembered, and it wins over ?lang
    assert await page.input_value("#lang") == "pt-PT"
    assert "Iniciar sessão" in await page.inner_text("#account")
    other = await context_page(browser, locale="fr-FR")  # nothing we speak: English
    await ready(other, server.http + "/rules/gaps")
    assert await html_lang(other) == "en"
    assert not page.errors and not other.errors, page.errors + other.errors


async def test_zero_is_singular_in_brazil_and_plural_in_portugal(shared: Shared) -> None:
    server, browser = shared.server, shared.browser
    now = datetime.now(UTC)
    await create(
        server,
        name="Vazio",
        starts_at=(now + timedelta(hours=2)).isoformat(),
        ends_at=(now + timedelta(hours=3)).isoformat(),
    )
    texts = {}
    page = await context_page(browser)
    await ready(page, server.http + "/")
    await page.fill("#reg-name", "zero")  # one player, who then switches languages
    await page.click("form.register button")
    await page.wait_for_selector(".tcard")
    empty = ".tcard:has-text('Vazio') .meta"  # the module's other tournaments have entrants
    for lang in ("pt-BR", "pt-PT", "es", "en"):
        await ready(page, server.http + f"/?lang={lang}")
        await page.wait_for_selector(empty)
        texts[lang] = await page.inner_text(empty)
    assert "0 participante" in texts["pt-BR"] and "0 participantes" not in texts["pt-BR"]
    assert "0 participantes" in texts["pt-PT"]
    assert "0 participantes" in texts["es"]
    assert "0 entrants" in texts["en"]
    # the rule itself, in the page's Intl
    forms = await page.evaluate(
        """async () => { const m = await import('/static/i18n.js');
             const cases = [['pt-BR', 0], ['pt-PT', 0], ['pt-BR', 1], ['pt-PT', 1], ['es', 0],
                            ['pt-BR', 2]];
             return cases.map(([lang, n]) => m.pluralIndex(lang, n)); }"""
    )
    assert forms == [0, 1, 0, 0, 1, 1]


# -- the pseudo-language walk ----------------------------------------------------------
FIND_UNTRANSLATED = (Path(__file__).parent / "js" / "find_untranslated.js").read_text()


async def untranslated(page: Any, names: list[str]) -> list[str]:
    return list(await page.evaluate(FIND_UNTRANSLATED, names))


async def test_every_page_in_the_pseudo_language_speaks_only_through_the_catalogue(
    shared: Shared,
) -> None:
    server, browser = shared.server, shared.browser
    paths, winner, token = shared.paths, shared.winner, shared.token
    names = sorted(
        {
            *NAMES,
            "robo",
            winner,
            "Torneio de sexta-feira à noite",
            "Closed early",
            "Friday Gaps",
            "Klondike hour",
            "drand",
            "quicknet",
            "samedeal",
        },
        key=len,
        reverse=True,
    )
    found: dict[str, list[str]] = {}
    pages: list[Any] = []

    async def walk(paths: list[str], signed_in: str = "") -> Any:
        """The pages at `paths` in a page of its own, chosen en-XA (and signed in)."""
        page = await context_page(browser)
        pages.append(page)
        await ready(page, server.http + "/?lang=en-XA")
        assert await html_lang(page) == "en-XA"
        await page.evaluate("() => localStorage.setItem('samedeal.lang', 'en-XA')")  # chosen
        if signed_in:
            script = "(t) => localStorage.setItem('samedeal.token', JSON.stringify(t))"
            await page.evaluate(script, token)
        for i, path in enumerate(paths):
            await visit(page, server.http, path, load=i == 0)
            await page.wait_for_timeout(300)  # pushes and fetches after the first paint
            left = await untranslated(page, names)
            if left:
                found[path + signed_in] = left
        return page

    anonymous = [
        *paths,
        "/rules/gaps",
        "/rules/klondike",
        "/leaderboard/klondike",
        "/account",
        "/leaderboard/chess",  # the not-found page
    ]
    # three pages walk at once (the same pages as one after the other, in a third of the
    # time); the fourth, signed in: the lobby's account box, the account page, a game
    # being played, then the resign question and a Klondike game below
    *_, page = await asyncio.gather(
        *(walk(anonymous[i::3]) for i in range(3)),
        walk(["/", paths[1], "/account", "/operator"], " (signed in)"),
    )
    # a question asked before what cannot be undone
    await ready(page, server.http + paths[1])
    await page.click("button.resign")
    await page.wait_for_selector(".confirm .yes")
    left = await untranslated(page, names)
    if left:
        found["the resign question"] = left
    await page.click(".confirm .no")
    # a Klondike game being played (its board, buttons, legend and hint)
    klondike = await create(
        server, name="Klondike hour", game="klondike", options={"draw": 1, "hints": True}
    )
    await ready(page, server.http + f"/t/{klondike['id']}")
    await page.click("button.join")
    await page.wait_for_selector(".klondike-play")
    await page.click("button.hint")
    await page.wait_for_timeout(300)
    left = await untranslated(page, names)
    if left:
        found["Klondike game"] = left
    assert not found, "\n".join(f"{p}:\n  " + "\n  ".join(v) for p, v in found.items())
    assert not [e for p in pages for e in p.errors], [e for p in pages for e in p.errors]


async def test_the_main_pages_in_pt_br_on_a_phone_and_es_on_a_desktop(shared: Shared) -> None:
    """The main pages in pt-BR on a phone (longer words than English) and in es on a
    desktop, in the browser's language and zone: none scrolls sideways; with
    SAMEDEAL_I18N_SHOTS=docs/screenshots each is saved there."""
    server, browser = shared.server, shared.browser
    paths, token = shared.paths, shared.token
    replay = next(p for p in paths if "/replay/" in p)
    analysis = next(p for p in paths if p.endswith("/analysis"))
    main = {
        "lobby": "/",
        "play": paths[1],
        "closed": analysis.removesuffix("/analysis"),
        "replay": replay,
        "analysis": analysis,
        "verify": "/verify",
        "leaderboard": "/leaderboard/gaps",
        "player": next(p for p in paths if p.startswith("/players/")),
        "rules-gaps": "/rules/gaps",
        "rules-klondike": "/rules/klondike",
    }
    overflow: dict[str, int] = {}
    seen = (
        ("pt-BR", (390, 844), "America/Sao_Paulo"),
        ("es", (1280, 900), "Europe/Madrid"),
        ("es", (390, 844), "America/Mexico_City"),  # checked, not saved
    )
    narrow = {"lobby", "play", "leaderboard", "player", "rules-gaps"}  # es's widest words

    async def look(lang: str, width: int, height: int, zone: str) -> None:
        """A browser set to the language, in its zone, through the main pages."""
        page = await context_page(browser, locale=lang, width=width, height=height, zone=zone)
        await ready(page, server.http + "/")
        await page.evaluate(
            "(t) => localStorage.setItem('samedeal.token', JSON.stringify(t))", token
        )
        await page.evaluate(
            "(n) => localStorage.setItem('samedeal.name', JSON.stringify(n))", NAMES[0]
        )
        for i, (name, path) in enumerate(main.items()):
            if (lang, width) == ("es", 390) and name not in narrow:
                continue
            await visit(page, server.http, path, load=i == 0)
            if name == "closed":
                await page.wait_for_selector(".replays li a", timeout=30_000)
            await page.wait_for_timeout(500 if SHOTS else 100)
            assert await html_lang(page) == lang
            overflow[f"{lang} {width} {name}"] = await settled_sideways(page)
            if SHOTS and (lang, width) in (("pt-BR", 390), ("es", 1280)):
                Path(SHOTS).mkdir(parents=True, exist_ok=True)
                await page.screenshot(
                    path=str(Path(SHOTS) / f"{lang}-{width}-{name}.png"), full_page=True
                )
        assert not page.errors, page.errors

    # the three at once, each in its own page
    await asyncio.gather(*(look(lang, w, h, zone) for lang, (w, h), zone in seen))
    assert len(overflow) == 10 + 10 + len(narrow)
    assert {k: v for k, v in overflow.items() if v} == {}
    assert re.match(r"^/t/\d+$", paths[1])


async def test_the_verify_page_says_its_check_lines_in_the_pages_language(
    shared: Shared,
) -> None:
    """The closed tournament's bundle verified in the page in pt-BR: every line said as
    `samedeal verify --lang pt-BR` says it (server/web/said.js), none left in English."""
    closed = next(p for p in shared.paths if p.endswith("/analysis")).removesuffix("/analysis")
    page = await context_page(shared.browser, locale="pt-BR")
    await ready(page, shared.server.http + closed)
    await page.click("button.verify-here")
    await page.locator(".verdict").wait_for(timeout=30_000)
    assert await page.locator(".verdict").get_attribute("data-verdict") == "ok"
    lines = (await page.locator(".lines").inner_text()).splitlines()
    assert lines[0].startswith("ok   torneio ") and "é igual ao compromisso" in lines[0]
    assert any("ações se repetem legalmente; resultado: " in line for line in lines)
    assert lines[-1].startswith("verificado: pacote do torneio ")
    for english in ("replay legally", "equals the commitment", "rows follow", "verified:"):
        assert not [line for line in lines if english in line], english
    assert not page.errors, page.errors
