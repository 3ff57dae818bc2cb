"""Passkeys (v1.4, PROTOCOL.md "Accounts"), as a client meets them over the protocol, on
SQLite and PostgreSQL, with a software authenticator (tests/support/authenticator.py;
the browser's ceremonies: tests/web/test_passkeys_browser.py). Security as features:
challenges single use, five minutes, for their purpose and player; origins and the RP
checked; a sign count that does not grow refused; only hashes of challenges kept;
sign-ins limited per address."""

from __future__ import annotations

import dataclasses
import hashlib
from typing import Any

from sqlalchemy import text

from server.net.limits import Registrations
from tests.support.authenticator import SoftAuthenticator, b64, unb64
from tests.support.harness import Client, Clock, create_msg, running_server


async def new_passkey(
    c: Client, origin: str, auth: SoftAuthenticator | None = None, label: str = "phone"
) -> tuple[SoftAuthenticator, dict[str, Any]]:
    auth = auth or SoftAuthenticator()
    options = (await c.ok(type="passkey_options", purpose="register"))["options"]
    added = await c.ok(
        type="passkey_register", credential=auth.create(options, origin), label=label
    )
    return auth, added["passkey"]


async def sign_in(c: Client, auth: SoftAuthenticator, origin: str, **spoil: Any) -> dict[str, Any]:
    options = (await c.ok(type="passkey_options", purpose="login"))["options"]
    return await c.req(type="passkey_login", credential=auth.get(options, origin, **spoil))


async def test_a_passkey_made_on_one_device_signs_in_on_another_without_a_name(db_url) -> None:
    clk = Clock()
    async with running_server(db_url, clk) as srv:
        origin = srv.http  # http://127.0.0.1:PORT: the request's own Host is the RP
        op = await srv.admin()
        tid = (await op.ok(**create_msg()))["tournament"]["id"]
        async with srv.client() as phone, srv.client() as laptop:
            reg = await phone.ok(type="register", name="Zoë", device="phone")
            options = (await phone.ok(type="passkey_options", purpose="register"))["options"]
            assert options["rp"]["id"] == "127.0.0.1" and options["timeout"] == 300000
            assert options["user"]["name"] == "Zoë" and len(unb64(options["user"]["id"])) <= 64
            assert {p["alg"] for p in options["pubKeyCredParams"]} >= {-7, -257}
            assert options["authenticatorSelection"] == {
                "residentKey": "required",
                "requireResidentKey": True,
                "userVerification": "preferred",
            }
            assert options["attestation"] == "none" and len(unb64(options["challenge"])) >= 16
            assert options["excludeCredentials"] == []
            auth = SoftAuthenticator()
            added = await phone.ok(
                type="passkey_register", credential=auth.create(options, origin), label="Pixel"
            )
            assert added["passkey"]["label"] == "Pixel"
            again = (await phone.ok(type="passkey_options", purpose="register"))["options"]
            assert again["user"]["id"] == options["user"]["id"]  # one handle per player
            assert [c["id"] for c in again["excludeCredentials"]] == [b64(auth.credential_id)]

            login = (await laptop.ok(type="passkey_options", purpose="login"))["options"]
            assert login["allowCredentials"] == [] and login["rpId"] == "127.0.0.1"
            assert login["userVerification"] == "preferred" and login["timeout"] == 300000
            got = await laptop.ok(type="passkey_login", credential=auth.get(login, origin))
            assert got["type"] == "registered" and got["player"]["name"] == "Zoë"
            assert got["device"]["kind"] == "passkey" and got["device"]["label"] == "Pixel"
            await laptop.ok(type="join", tournament=tid)  # signed in: it plays
            listed = (await laptop.ok(type="passkeys"))["items"]
            assert [(p["label"], p["last_used_at"] is not None) for p in listed] == [
                ("Pixel", True)
            ]
            kinds = [d["kind"] for d in (await phone.ok(type="devices"))["items"]]
            assert kinds == ["token", "passkey"]
        async with srv.client() as later:
            await later.ok(type="auth", token=got["token"])  # the token it was given works
            await later.ok(type="auth", token=reg["token"])


async def test_every_answer_uses_its_challenge_up(db_url) -> None:
    clk = Clock()
    async with running_server(db_url, clk) as srv, srv.client() as c, srv.client() as other:
        origin = srv.http
        await c.ok(type="register", name="amy")
        await other.ok(type="register", name="bea")
        auth, _ = await new_passkey(c, origin)
        options = (await c.ok(type="passkey_options", purpose="login"))["options"]
        answer = auth.get(options, origin)
        await c.ok(type="passkey_login", credential=answer)
        await c.err("unauthorized", type="passkey_login", credential=answer)  # replayed
        # a refused answer uses its challenge up too: the right one after it is refused
        options = (await c.ok(type="passkey_options", purpose="login"))["options"]
        await c.err(
            "unauthorized",
            type="passkey_login",
            credential=auth.get(options, "http://evil.example"),
        )
        await c.err("unauthorized", type="passkey_login", credential=auth.get(options, origin))
        # five minutes
        options = (await c.ok(type="passkey_options", purpose="login"))["options"]
        clk.advance(301)
        await c.err("unauthorized", type="passkey_login", credential=auth.get(options, origin))
        # for its purpose, and to register, for its player
        login = (await c.ok(type="passkey_options", purpose="login"))["options"]
        register = (await c.ok(type="passkey_options", purpose="register"))["options"]
        spoiled = SoftAuthenticator().create({**register, "challenge": login["challenge"]}, origin)
        await c.err("unauthorized", type="passkey_register", credential=spoiled)
        theirs = (await other.ok(type="passkey_options", purpose="register"))["options"]
        stolen = SoftAuthenticator().create(theirs, origin)
        await c.err("unauthorized", type="passkey_register", credential=stolen)
        await other.err("unauthorized", type="passkey_register", credential=stolen)  # used up
        await c.err("unauthorized", type="passkey_login", credential=auth.get(register, origin))
        # a challenge nobody issued
        await c.err(
            "unauthorized",
            type="passkey_login",
            credential=auth.get(login, origin, challenge=b64(b"x" * 32)),
        )
        async with srv.app.store.engine.connect() as conn:
            kept = (await conn.execute(text("SELECT challenge_hash FROM passkey_challenges"))).all()
        digest = hashlib.sha256(unb64(login["challenge"])).hexdigest()
        assert digest in {r[0] for r in kept}  # kept as a hash, never as itself
        assert login["challenge"] not in {r[0] for r in kept}


async def test_ceremonies_are_checked(db_url) -> None:
    async with running_server(db_url) as srv, srv.client() as c, srv.client() as d:
        origin = srv.http
        await c.ok(type="register", name="cid")
        await d.ok(type="register", name="dan")

        async def refused_create(auth: SoftAuthenticator, **spoil: Any) -> None:
            options = (await c.ok(type="passkey_options", purpose="register"))["options"]
            credential = auth.create(options, spoil.pop("origin", origin), **spoil)
            await c.err("unauthorized", type="passkey_register", credential=credential)

        await refused_create(SoftAuthenticator(), origin="http://evil.example")
        await refused_create(SoftAuthenticator(), origin="https://127.0.0.1:1")  # another port
        await refused_create(SoftAuthenticator(), kind="webauthn.get")
        await refused_create(SoftAuthenticator(), cross_origin=True)
        await refused_create(SoftAuthenticator(), rp_id="evil.example")
        await refused_create(SoftAuthenticator(), flags=0x44)  # UV and AT, not UP
        await refused_create(SoftAuthenticator(credential_id=b"\x01" * 1024))
        await c.err("bad_request", type="passkey_register", credential="a string")
        await c.err("bad_request", type="passkey_register", credential={"id": 1}, label="")
        # another attestation format: the statement is not checked, the rest is
        await new_passkey(c, origin, SoftAuthenticator(), "packed")
        options = (await c.ok(type="passkey_options", purpose="register"))["options"]
        packed = SoftAuthenticator().create(options, origin, fmt="packed")
        await c.ok(type="passkey_register", credential=packed)
        # UV is not required
        options = (await c.ok(type="passkey_options", purpose="register"))["options"]
        await c.ok(
            type="passkey_register",
            credential=SoftAuthenticator().create(options, origin, flags=0x41),
        )

        auth, _ = await new_passkey(c, origin)
        taken = (await d.ok(type="passkey_options", purpose="register"))["options"]
        twin = dataclasses.replace(auth)  # the same credential, offered to another account
        await d.err("unauthorized", type="passkey_register", credential=twin.create(taken, origin))
        assert [p["label"] for p in (await d.ok(type="passkeys"))["items"]] == []

        async with srv.client() as x:
            for spoil in (
                {"kind": "webauthn.create"},
                {"cross_origin": True},
                {"flags": 0x04},  # not present
                {"user_handle": b64(b"someone else")},
                {"count": auth.sign_count},  # did not grow: a clone
            ):
                reply = await sign_in(x, auth, origin, **spoil)
                assert reply["type"] == "error" and reply["code"] == "unauthorized", (spoil, reply)
            kinds = [d["kind"] for d in (await c.ok(type="devices"))["items"]]
            assert kinds == ["token"]  # a refused passkey_login adds no device
            async with srv.app.store.engine.connect() as conn:  # not even a revoked one
                made = (await conn.execute(text("SELECT count(*) FROM devices"))).scalar_one()
            assert made == 2  # cid's and dan's first
            reply = await sign_in(x, auth, origin)
            assert reply["type"] == "registered" and reply["player"]["name"] == "cid"
            stranger = SoftAuthenticator()
            stranger.user_handle, stranger.rp_id = b64(b"h"), "127.0.0.1"
            reply = await sign_in(x, stranger, origin)
            assert reply["type"] == "error" and reply["code"] == "unauthorized"
            # a signature that does not verify
            options = (await x.ok(type="passkey_options", purpose="login"))["options"]
            bad = auth.get(options, origin)
            bad["response"]["signature"] = b64(b"\x30\x06\x02\x01\x01\x02\x01\x01")
            await x.err("unauthorized", type="passkey_login", credential=bad)
        kinds = [d["kind"] for d in (await c.ok(type="devices"))["items"]]
        assert kinds == ["token", "passkey"]  # the one sign-in that was accepted


async def test_a_count_that_stays_zero_signs_in_and_a_removed_passkey_does_not(db_url) -> None:
    async with running_server(db_url) as srv, srv.client() as c, srv.client() as x:
        origin = srv.http
        await c.ok(type="register", name="eda")
        synced, first = await new_passkey(c, origin, SoftAuthenticator(counting=False), "synced")
        for _ in range(2):  # a count of 0 stays 0: allowed while it was never counted
            assert (await sign_in(x, synced, origin))["type"] == "registered"
        device = (await sign_in(x, synced, origin))["device"]
        await c.err("not_found", type="remove_passkey", passkey=first["id"] + 100)
        await c.ok(type="remove_passkey", passkey=first["id"])
        await c.err("not_found", type="remove_passkey", passkey=first["id"])
        assert (await sign_in(x, synced, origin))["code"] == "unauthorized"
        assert (await c.ok(type="passkeys"))["items"] == []
        listed = [d["id"] for d in (await c.ok(type="devices"))["items"]]
        assert device["id"] in listed  # the devices it signed in stay until revoked
        async with srv.client() as nobody:  # making one needs a signed-in player
            await nobody.err("unauthorized", type="passkey_options", purpose="register")


async def test_deleting_the_account_removes_its_passkeys(db_url) -> None:
    async with running_server(db_url) as srv, srv.client() as c, srv.client() as x:
        origin = srv.http
        await c.ok(type="register", name="gus")
        auth, _ = await new_passkey(c, origin)
        await c.ok(type="delete_account", confirm="gus")
        assert (await sign_in(x, auth, origin))["code"] == "unauthorized"


async def test_public_and_allowed_origins(sqlite_url) -> None:
    async with running_server(sqlite_url) as srv, srv.client() as c:
        limits = srv.app.serve_limits
        srv.app.serve_limits = dataclasses.replace(
            limits,
            public_origin="https://play.example",
            allowed_origins=frozenset({"https://mirror.example"}),
        )
        await c.ok(type="register", name="hal")
        options = (await c.ok(type="passkey_options", purpose="register"))["options"]
        assert options["rp"]["id"] == "play.example"
        auth = SoftAuthenticator()
        await c.err(
            "unauthorized", type="passkey_register", credential=auth.create(options, srv.http)
        )
        auth, _ = await new_passkey(c, "https://play.example", auth)
        assert (await sign_in(c, auth, "https://mirror.example"))["type"] == "registered"
        assert (await sign_in(c, auth, srv.http))["code"] == "unauthorized"


async def test_sign_ins_are_limited_per_address_before_anything_else(sqlite_url) -> None:
    async with running_server(sqlite_url) as srv, srv.client() as c:
        origin = srv.http
        await c.ok(type="register", name="ivy")
        auth, _ = await new_passkey(c, origin)
        srv.app.sign_ins = Registrations(2)
        for _ in range(2):
            assert (await sign_in(c, auth, origin))["type"] == "registered"
        options = (await c.ok(type="passkey_options", purpose="login"))["options"]
        answer = auth.get(options, origin)
        limited = await c.err("rate_limited", type="passkey_login", credential=answer)
        assert "limit" not in limited
        srv.app.sign_ins = Registrations(0)  # the minute is over
        await c.ok(type="passkey_login", credential=answer)  # its challenge was left unused
