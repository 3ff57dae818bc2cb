"""Passkeys in the browser (v1.4, PROTOCOL.md "Accounts"), in headless Chromium with a
virtual authenticator (the DevTools protocol's WebAuthn domain through Playwright's CDP
session), as a person meets them: register, create a passkey on the account page, sign
out, sign in with the passkey from the lobby without typing a name, and play a move;
then remove it. The page is http://localhost:PORT: a secure context, so WebAuthn works
without TLS, and the request's own Host makes the relying party `localhost`."""

from __future__ import annotations

from typing import Any

from tests.support.harness import Running
from tests.web.conftest import create, new_page, shot, state, wait_seq

AUTHENTICATOR = {
    "protocol": "ctap2",
    "transport": "internal",
    "hasResidentKey": True,
    "hasUserVerification": True,
    "isUserVerified": True,
    "automaticPresenceSimulation": True,
}


async def with_authenticator(page: Any) -> tuple[Any, str]:
    cdp = await page.context.new_cdp_session(page)
    await cdp.send("WebAuthn.enable", {"enableUI": False})
    added = await cdp.send("WebAuthn.addVirtualAuthenticator", {"options": AUTHENTICATOR})
    return cdp, added["authenticatorId"]


async def play_one_move(page: Any) -> None:
    st = await wait_seq(page, 0)
    move = st["view"]["legal"][0]
    r, c = move["to"]
    takers = [m for m in st["view"]["legal"] if m["to"] == [r, c]]
    if len(takers) == 1:
        await page.click(f'.gaps-grid [data-row="{r}"][data-col="{c}"]')
    else:
        await page.click(f'.gaps-grid [data-row="{r}"][data-col="{c}"]') if c == 0 else None
        await page.click(f'.gaps-grid button.card[data-card="{move["card"]}"]')
    await wait_seq(page, 1)


async def test_a_passkey_created_on_the_account_page_signs_in_from_the_lobby(
    browser: Any, server: Running
) -> None:
    t = await create(server, name="Passkey Gaps")
    base = f"http://localhost:{server.port}"
    errors: list[str] = []
    page = await new_page(browser, errors)
    cdp, authenticator = await with_authenticator(page)

    await page.goto(base + "/")
    assert await page.evaluate("window.isSecureContext")
    await page.fill("#reg-name", "quinn")
    await page.click("form.register button[type=submit]")
    await page.wait_for_selector(".signout")

    await page.goto(base + "/account")
    await page.wait_for_selector("form.passkey-add")
    await page.fill("#passkey-label", "work laptop")
    await page.click("form.passkey-add button[type=submit]")
    await page.locator(".passkey-msg", has_text="created").wait_for(timeout=20_000)
    await page.locator("li.passkey", has_text="work laptop").wait_for()
    creds = await cdp.send("WebAuthn.getCredentials", {"authenticatorId": authenticator})
    [cred] = creds["credentials"]
    assert cred["isResidentCredential"] and cred["signCount"] >= 0
    await shot(page, "account-passkeys")

    # sign out (the token forgotten), then back in with the passkey: no name typed
    await page.goto(base + "/")
    await page.click("button.signout")
    await page.click("button.signout-yes")
    await page.wait_for_selector("button.passkey-signin")
    assert await page.evaluate("localStorage.getItem('samedeal.token')") is None
    await page.click("button.passkey-signin")
    await page.wait_for_selector(".signout", timeout=20_000)
    assert (await page.text_content(".me")) == "quinn"
    await shot(page, "lobby-passkey-signed-in")

    await page.goto(f"{base}/t/{t['id']}")
    await page.click("button.join")
    await play_one_move(page)
    assert (await state(page))["seq"] == 1

    # the account page lists the passkey's device and the passkey; remove it
    await page.goto(base + "/account")
    await page.locator("li.device", has_text="work laptop").wait_for()
    await page.click("li.passkey button.passkey-remove")
    await page.locator(".passkey-msg", has_text="removed").wait_for()
    await page.locator("ul.passkeys li.muted").wait_for()

    # a removed passkey signs in no more: the lobby says so, signed out still
    await page.goto(base + "/")
    await page.click("button.signout")
    await page.click("button.signout-yes")
    await page.click("button.passkey-signin")
    await page.locator(".passkey-msg", has_text="refused").wait_for(timeout=20_000)
    assert await page.evaluate("localStorage.getItem('samedeal.token')") is None
    assert not errors, errors


async def test_on_127_0_0_1_the_page_says_what_a_passkey_needs(
    browser: Any, server: Running
) -> None:
    """http://127.0.0.1 is a secure context too, but an IP address is no relying party
    ID a browser accepts: creating a passkey there is refused by the browser with a
    clear message, and nothing is stored (use localhost, or --public-origin)."""
    page = await new_page(browser)
    await with_authenticator(page)
    await page.goto(server.http + "/")
    assert await page.evaluate("window.isSecureContext")
    await page.fill("#reg-name", "ravi")
    await page.click("form.register button[type=submit]")
    await page.wait_for_selector(".signout")
    await page.goto(server.http + "/account")
    await page.click("form.passkey-add button[type=submit]")
    msg = page.locator(".passkey-msg")
    await msg.filter(has_text="localhost").wait_for(timeout=20_000)
    assert await page.locator("li.passkey").count() == 0


async def test_the_fallback_without_the_json_forms(browser: Any, server: Running) -> None:
    """A browser without PublicKeyCredential.parse*FromJSON and toJSON (older ones): the
    page's own base64url fallback makes and uses the passkey just the same."""
    base = f"http://localhost:{server.port}"
    errors: list[str] = []
    page = await new_page(browser, errors)
    await page.add_init_script(
        "delete PublicKeyCredential.parseCreationOptionsFromJSON;"
        "delete PublicKeyCredential.parseRequestOptionsFromJSON;"
        "delete PublicKeyCredential.prototype.toJSON;"
    )
    await with_authenticator(page)
    await page.goto(base + "/")
    assert await page.evaluate(
        "typeof PublicKeyCredential.parseCreationOptionsFromJSON === 'undefined'"
        " && typeof PublicKeyCredential.prototype.toJSON === 'undefined'"
    )
    await page.fill("#reg-name", "sol")
    await page.click("form.register button[type=submit]")
    await page.wait_for_selector(".signout")
    await page.goto(base + "/account")
    await page.click("form.passkey-add button[type=submit]")
    await page.locator(".passkey-msg", has_text="created").wait_for(timeout=20_000)
    await page.goto(base + "/")
    await page.click("button.signout")
    await page.click("button.signout-yes")
    await page.click("button.passkey-signin")
    await page.wait_for_selector(".signout", timeout=20_000)
    assert (await page.text_content(".me")) == "sol"
    assert not errors, errors
