"""The account messages' handlers (server/net/accounts_session.py), through one
connection's session in-process: devices listed with the current one marked, revoked
one or all others (their connections told), a device linked by code and poll (the
polling connection signed in as it), the account deleted, and passkeys' public and
signed-in halves, each limited per address where the contract says."""

from __future__ import annotations

from server.domain.accounts import RelyingParty
from server.net import accounts_session
from server.net.app import App
from tests.net.conftest import Wire, signed_in
from tests.support.harness import Clock

RP = RelyingParty("play.example", ("https://play.example",))


def test_every_account_message_has_its_handler() -> None:
    from server.net.accounts_protocol import ACCOUNT_MESSAGES

    kinds = {m.model_fields["type"].annotation.__args__[0] for m in ACCOUNT_MESSAGES}  # type: ignore[union-attr]
    assert set(accounts_session.HANDLERS) == kinds


async def test_a_device_is_linked_by_its_code_and_the_polling_connection_becomes_it(
    app: App, clock: Clock
) -> None:
    ana = await signed_in(app, "ana")
    phone = Wire(app)
    started = await phone.ok(type="link_start", label="phone")
    assert started["type"] == "link_code" and started["expires_at"] == "2026-11-30T18:10:00.000Z"
    assert started["interval_s"] >= 1 and started["code"] and started["poll"]
    await phone.err("authorization_pending", type="link_poll", poll=started["poll"])
    shown = await ana.ok(type="link_info", code=started["code"])
    assert (shown["label"], shown["expires_at"]) == ("phone", started["expires_at"])
    approved = await ana.ok(type="link_approve", code=started["code"])
    assert approved["device"]["label"] == "phone"
    clock.advance(started["interval_s"])
    linked = await phone.ok(type="link_poll", poll=started["poll"])
    assert linked["type"] == "registered" and linked["player"]["name"] == "ana"
    assert linked["device"] == {"id": approved["device"]["id"], "label": "phone", "kind": "link"}
    assert phone.session.player is not None and phone.session.player.name == "ana"
    refused = await ana.err("not_found", type="link_approve", code="WRONG-CODE")
    assert refused["reason"] == "no_link_code"


async def test_a_link_start_counts_against_the_addresss_registrations(app: App) -> None:
    wire = Wire(app)
    wire.session.may_register = lambda: False
    refused = await wire.err("rate_limited", type="link_start")
    assert refused["reason"] == "too_many_links"


async def test_devices_are_listed_and_revoked_and_their_connections_told(
    app: App, clock: Clock
) -> None:
    ana = await signed_in(app, "ana")
    token = (await Wire(app).ok(type="register", name="bo"))["token"]
    other = Wire(app)
    await other.ok(type="auth", token=token)
    other_too = await signed_in(app, "cy")
    phone = Wire(app)
    started = await phone.ok(type="link_start", label="phone")
    await ana.ok(type="link_approve", code=started["code"])
    clock.advance(started["interval_s"])
    await phone.ok(type="link_poll", poll=started["poll"])
    listed = await ana.ok(type="devices")
    assert [(d["label"], d["current"]) for d in listed["items"]] == [(None, True), ("phone", False)]
    assert (await phone.ok(type="devices"))["items"][1]["current"] is True
    revoked = await ana.ok(type="revoke_other_devices")
    assert revoked == {"type": "devices_revoked", "count": 1, "re": None}
    assert await phone.pushed() == [{"type": "signed_out"}] and phone.session.player is None
    await ana.err("not_found", type="revoke_device", device=listed["items"][1]["id"])
    mine = listed["items"][0]["id"]
    gone = await ana.ok(type="revoke_device", device=mine)
    assert gone == {"type": "device_revoked", "device": mine, "re": None}
    assert ana.session.player is None  # its own device: signed out too
    assert other.session.player is not None and other_too.session.player is not None


async def test_an_account_is_deleted_only_with_its_name_confirmed(app: App) -> None:
    ana = Wire(app)
    token = (await ana.ok(type="register", name="ana"))["token"]
    refused = await ana.err("bad_request", type="delete_account", confirm="Ana?")
    assert refused["reason"] == "confirm_name" and ana.session.player is not None
    assert (await ana.ok(type="delete_account", confirm="ana"))["type"] == "account_deleted"
    await Wire(app).err("unauthorized", type="auth", token=token)  # no device left


async def test_passkeys_options_to_sign_in_are_public_to_add_one_are_not(app: App) -> None:
    anonymous = Wire(app)
    anonymous.session.relying_party = lambda: RP
    login = await anonymous.ok(type="passkey_options", purpose="login")
    assert login["options"]["rpId"] == "play.example" and login["options"]["challenge"]
    refused = await anonymous.err("unauthorized", type="passkey_options", purpose="register")
    assert refused["message"] == accounts_session.TEXTS["authenticate"]
    ana = await signed_in(app, "ana")
    ana.session.relying_party = lambda: RP
    made = await ana.ok(type="passkey_options", purpose="register")
    assert made["options"]["rp"]["id"] == "play.example"
    assert made["options"]["user"]["name"] == "ana"
    assert (await ana.ok(type="passkeys"))["items"] == []
    await ana.err("not_found", type="remove_passkey", passkey=7)
    refused = await ana.err("unauthorized", type="passkey_register", credential={"id": "x"})
    assert refused["message"].startswith("the passkey was refused")


async def test_passkey_sign_ins_are_limited_per_address_before_anything_else(app: App) -> None:
    wire = Wire(app)
    wire.session.relying_party = lambda: RP
    wire.session.may_sign_in = lambda: False
    refused = await wire.err("rate_limited", type="passkey_login", credential={"id": "x"})
    assert refused["message"] == accounts_session.TEXTS["sign_ins"]
    wire.session.may_sign_in = lambda: True
    refused = await wire.err("unauthorized", type="passkey_login", credential={"id": "x"})
    assert refused["message"].startswith("the passkey was refused")
    assert wire.session.player is None
