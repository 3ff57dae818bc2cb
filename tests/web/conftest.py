"""Fixtures of the browser tests: headless Debian Chromium driven by Playwright, and a
server in the test's loop on the real clock (its lifecycle ticking)."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from server.domain import timing
from tests.support.harness import Running, running_server
from tests.web.support import CHROMIUM_ARGS, require_chromium

SHOTS = os.environ.get("SAMEDEAL_SCREENSHOTS")  # a folder: the tests save their screenshots


class RealClock:
    """The server's clock is the wall clock here (the browser counts down from it)."""

    def __call__(self) -> datetime:
        return timing.utcnow()

    def advance(self, seconds: float) -> None:  # the harness's Clock interface
        raise NotImplementedError


@pytest.fixture
async def browser() -> AsyncIterator[Any]:
    executable = require_chromium()
    from playwright.async_api import async_playwright

    async with async_playwright() as pw:
        b = await pw.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            await b.close()


@pytest.fixture
async def server(sqlite_url: str) -> AsyncIterator[Running]:
    async with running_server(sqlite_url, RealClock(), tick=True) as running:  # type: ignore[arg-type]
        yield running


async def new_page(browser: Any, errors: list[str] | None = None) -> Any:
    """A fresh browser context (its own localStorage) and page; page errors, console errors
    and CSP violations are collected in `errors`."""
    context = await browser.new_context(viewport={"width": 1280, "height": 860})
    page = await context.new_page()
    if errors is not None:
        page.on("pageerror", lambda e: errors.append(f"pageerror: {e}"))
        page.on(
            "console",
            lambda m: errors.append(f"console: {m.text}") if m.type == "error" else None,
        )
    return page


async def shot(page: Any, name: str) -> None:
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        await page.screenshot(path=str(Path(SHOTS) / f"{name}.png"), full_page=True)


async def create(running: Running, **over: Any) -> dict[str, Any]:
    """A tournament open now (an admin creates it over the protocol)."""
    admin = await running.admin(f"op{os.urandom(3).hex()}")
    now = datetime.now(UTC)
    msg = {
        "type": "create_tournament",
        "name": "Friday Gaps",
        "game": "gaps",
        "options": {"redeals": 2},
        "starts_at": (now - timedelta(seconds=1)).isoformat(),
        "ends_at": (now + timedelta(hours=1)).isoformat(),
        "time_limit_s": 900,
    }
    msg.update(over)
    reply = await admin.ok(**msg)
    await admin.close()
    return reply["tournament"]


async def close(running: Running, tournament_id: int) -> None:
    admin = await running.admin(f"op{os.urandom(3).hex()}")
    await admin.ok(type="close_tournament", tournament=tournament_id)
    await admin.close()


async def register(page: Any, base: str, name: str) -> None:
    await page.goto(base + "/")
    await page.fill("#reg-name", name)
    await page.click("form.register button")
    await page.wait_for_selector(".signout")


async def state(page: Any) -> dict[str, Any]:
    """The last STATE the page received."""
    return await page.evaluate("window.samedeal.state")


async def wait_seq(page: Any, seq: int, timeout: float = 10_000) -> dict[str, Any]:
    await page.wait_for_function(
        "(seq) => window.samedeal.state && window.samedeal.state.seq >= seq",
        arg=seq,
        timeout=timeout,
    )
    return await state(page)
