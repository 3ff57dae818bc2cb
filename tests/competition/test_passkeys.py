"""Passkeys (server/competition/passkeys.py), in process with a software authenticator
(tests/support/authenticator.py): the options, a passkey made and used to sign in as a
new device, and what the part checks beyond py_webauthn (challenges single use, for their
purpose and player, within five minutes; crossOrigin; the user handle; a sign count that
does not grow; a credential held already; an attestation of another format unchecked)."""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any

import pytest

from server.competition import passkeys
from server.competition.errors import CompetitionError
from server.competition.passkeys import b64url, unb64url
from server.competition.service import Competition
from server.domain.accounts import DeviceKind, RelyingParty
from server.domain.model import PlayerInfo
from tests.support.authenticator import SoftAuthenticator, b64
from tests.support.harness import Clock

ORIGIN = "https://play.example"
RP = RelyingParty("play.example", (ORIGIN,))


async def refused(ask: Awaitable[Any], code: str = "unauthorized") -> str:
    with pytest.raises(CompetitionError) as err:
        await ask
    assert err.value.code == code
    return err.value.message


async def made(
    competition: Competition, player: PlayerInfo, auth: SoftAuthenticator, **spoil: Any
) -> Any:
    options = await competition.passkeys.register_options(player, RP)
    credential = auth.create(options, ORIGIN, **spoil)
    return await competition.passkeys.register(player, credential, "Pixel", RP)


async def login_answer(competition: Competition, auth: SoftAuthenticator, **spoil: Any) -> Any:
    options = await competition.passkeys.login_options(RP)
    return auth.get(options, ORIGIN, **spoil)


async def test_a_passkey_made_signs_in_as_a_new_device_without_a_name(
    competition: Competition, alice: PlayerInfo
) -> None:
    options = await competition.passkeys.register_options(alice, RP)
    assert options["rp"] == {"id": "play.example", "name": "samedeal"}
    assert options["user"]["name"] == "alice" and options["excludeCredentials"] == []
    assert options["timeout"] == passkeys.TIMEOUT_MS
    auth = SoftAuthenticator()
    added = await competition.passkeys.register(alice, auth.create(options, ORIGIN), "Pixel", RP)
    assert added.label == "Pixel" and added.credential_id == b64(auth.credential_id)
    again = await competition.passkeys.register_options(alice, RP)
    assert again["user"]["id"] == options["user"]["id"]  # one user handle per player
    assert [c["id"] for c in again["excludeCredentials"]] == [b64(auth.credential_id)]
    login = await competition.passkeys.login_options(RP)
    assert login["allowCredentials"] == [] and login["rpId"] == "play.example"
    player, device, token = await competition.passkeys.login(auth.get(login, ORIGIN), RP)
    assert player == alice and (device.kind, device.label) == (DeviceKind.PASSKEY, "Pixel")
    assert await competition.devices.authenticate(token) == (alice, device)
    assert [p.id for p in await competition.passkeys.listed(alice)] == [added.id]


async def test_a_challenge_is_used_once_for_its_purpose_within_five_minutes(
    competition: Competition, alice: PlayerInfo, clock: Clock
) -> None:
    auth = SoftAuthenticator()
    await made(competition, alice, auth)
    answer = await login_answer(competition, auth)
    await competition.passkeys.login(answer, RP)
    await refused(competition.passkeys.login(answer, RP))  # replayed
    late = await login_answer(competition, auth)
    clock.advance(301)
    await refused(competition.passkeys.login(late, RP))
    register = await competition.passkeys.register_options(alice, RP)
    await refused(competition.passkeys.login(auth.get(register, ORIGIN), RP))  # other purpose
    bob, _ = await competition.players.register("bob")
    theirs = await competition.passkeys.register_options(bob, RP)
    stolen = SoftAuthenticator().create(theirs, ORIGIN)
    await refused(competition.passkeys.register(alice, stolen, None, RP))  # not alice's


async def test_what_the_part_checks_beyond_the_library(
    competition: Competition, alice: PlayerInfo
) -> None:
    auth = SoftAuthenticator()
    assert "another origin" in await refused(made(competition, alice, auth, cross_origin=True))
    await made(competition, alice, auth, fmt="packed")  # an attestation statement unchecked
    assert "registered already" in await refused(made(competition, alice, auth))
    wrong_user = await login_answer(competition, auth, user_handle=b64(b"someone else"))
    assert "user handle" in await refused(competition.passkeys.login(wrong_user, RP))
    await competition.passkeys.login(await login_answer(competition, auth, count=5), RP)
    clone = await login_answer(competition, auth, count=5)
    assert "sign count" in await refused(competition.passkeys.login(clone, RP))
    evil = await competition.passkeys.login_options(RP)
    await refused(competition.passkeys.login(auth.get(evil, "https://evil.example"), RP))
    unknown = await login_answer(competition, SoftAuthenticator())
    assert "no such passkey" in await refused(competition.passkeys.login(unknown, RP))
    garbled = {"response": {"clientDataJSON": "***"}}
    assert "clientDataJSON" in await refused(competition.passkeys.login(garbled, RP))


async def test_without_a_relying_party_there_is_no_ceremony(
    competition: Competition, alice: PlayerInfo
) -> None:
    await refused(competition.passkeys.login_options(None), "bad_request")
    await refused(competition.passkeys.register_options(alice, None), "bad_request")


async def test_a_removed_passkey_signs_in_no_more(
    competition: Competition, alice: PlayerInfo
) -> None:
    auth = SoftAuthenticator()
    added = await made(competition, alice, auth)
    bob, _ = await competition.players.register("bob")
    await refused(competition.passkeys.remove(bob, added.id), "not_found")  # not bob's
    await competition.passkeys.remove(alice, added.id)
    await refused(competition.passkeys.remove(alice, added.id), "not_found")
    assert await competition.passkeys.listed(alice) == []
    answer = await login_answer(competition, auth)
    await refused(competition.passkeys.login(answer, RP))


def test_base64url_without_padding_both_ways() -> None:
    for data in (b"", b"\xff", b"\xfb\xef", b"abc"):
        assert "=" not in b64url(data) and unb64url(b64url(data)) == data
    for bad in (None, 12, "a", "x" * (1 << 20) + "x"):
        with pytest.raises(ValueError):
            unb64url(bad)
