"""The verify page in real headless Chromium on fair-play bundles: one amended after the
close is accepted (with the fair-play line), a tampered one, whose standings ignore the
amendment, is refused in the Python verifier's words."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from server.audit.verify import verify_document
from tests.audit.test_amended import _bundle, _leader
from tests.support.fairplay import amend
from tests.support.harness import Running
from tests.web.conftest import create, new_page, register, shot, wait_seq


async def test_the_verify_page_accepts_an_amended_bundle_and_refuses_a_tampered_one(
    browser: Any, server: Running, tmp_path: Path
) -> None:
    good_doc = _bundle()
    amended = amend(good_doc, _leader(good_doc), "a solver played the moves")
    tampered = dict(amended, standings=good_doc["standings"])  # the amendment ignored
    assert verify_document(amended).ok
    expected = verify_document(tampered).error
    assert expected and expected.startswith("standings row 1")
    good, bad = tmp_path / "amended.json", tmp_path / "tampered.json"
    good.write_text(json.dumps(amended))
    bad.write_text(json.dumps(tampered))

    errors: list[str] = []
    page = await new_page(browser, errors)
    await page.goto(f"http://127.0.0.1:{server.port}/verify")
    await page.set_input_files("#file", str(good))
    await page.locator(".verdict[data-verdict='ok']").wait_for(timeout=30_000)
    lines = await page.locator(".lines").inner_text()
    assert "fair play: 1 disqualified, 1 of them by amendments after the close" in lines
    await shot(page, "verify-amended")
    await page.set_input_files("#file", str(bad))
    await page.locator(".verdict[data-verdict='fail']").wait_for(timeout=30_000)
    assert f"FAIL {expected}" in await page.locator(".lines").inner_text()
    assert not errors, errors


async def test_a_watcher_sees_a_disqualified_entry_go_to_the_end(
    browser: Any, server: Running
) -> None:
    t = await create(server, name="Fair Friday")
    base = server.http
    page = await new_page(browser)
    await register(page, base, "cheat")
    await page.goto(f"{base}/t/{t['id']}")
    await page.click("button.join")
    await wait_seq(page, 0)
    other = await new_page(browser)
    await register(other, base, "honest")
    await other.goto(f"{base}/t/{t['id']}")
    await other.click("button.join")
    await wait_seq(other, 0)
    visitor = await new_page(browser)
    await visitor.goto(f"{base}/t/{t['id']}")
    rows = visitor.locator(".standings tbody tr[data-player]")
    await visitor.locator(".standings tr[data-player='honest']").wait_for(timeout=10_000)

    op = await server.admin("referee")
    await op.ok(type="disqualify", tournament=t["id"], player="cheat", reason="second account")
    await visitor.locator(".standings tr.disqualified[data-player='cheat']").wait_for(
        timeout=10_000
    )
    assert await rows.last.get_attribute("data-player") == "cheat"
    assert await rows.last.locator("td").first.inner_text() == "DQ"
    assert await rows.last.get_attribute("title") == "disqualified: second account"
    assert await rows.first.locator("td").first.inner_text() == "1"
    await shot(visitor, "standings-disqualified")
