"""Devices (server/competition/devices.py): every token is one device of its player;
signing in with one, listing them, revoking one or all others, and signing out the
connections held with revoked devices, here or learned from another node."""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable

import pytest
from sqlalchemy import text

from server.competition.errors import CompetitionError
from server.competition.service import Competition
from server.domain.accounts import DeviceKind
from tests.support.harness import Clock


async def refused(code: str, reason: str | None, ask: Awaitable[object]) -> None:
    with pytest.raises(CompetitionError) as err:
        await ask
    assert err.value.code == code
    if reason is not None:
        assert err.value.reason == reason


async def test_register_makes_a_player_its_first_device_and_token(
    competition: Competition,
) -> None:
    player, device, token = await competition.devices.register("ana", "phone")
    assert (device.player_id, device.kind, device.label) == (player.id, DeviceKind.TOKEN, "phone")
    assert await competition.devices.authenticate(token) == (player, device)
    bot, _, bot_token = await competition.devices.register("robo", None, bot=True)
    assert bot.bot and (await competition.devices.authenticate(bot_token))[0] == bot


async def test_register_refuses_reserved_names_and_bad_labels(competition: Competition) -> None:
    await refused("name_taken", None, competition.devices.register("Deleted-12", None))
    await refused("bad_request", "bad_label", competition.devices.register("ana", ""))
    await refused("bad_request", "bad_label", competition.devices.register("ana", "a\tb"))
    assert await competition.store.player_by_name("ana") is None


async def test_an_erased_name_is_taken_for_a_player_and_a_bot(competition: Competition) -> None:
    """Said with the name as given (the writer refuses a player's, in its insert's
    transaction); a bad name stays `bad_request`."""
    gus, _, _ = await competition.devices.register("Gus", None)
    await competition.accounts.delete(gus, "Gus")
    for bot in (False, True):
        with pytest.raises(CompetitionError) as err:
            await competition.devices.register("GUS", None, bot)
        assert (err.value.code, err.value.params) == ("name_taken", {"name": "GUS"})
        assert str(err.value) == "the name 'GUS' is taken"
    await refused("bad_request", "bad_name", competition.devices.register("g u s", None))


async def test_a_token_finds_its_player_and_only_the_hash_is_stored(
    competition: Competition,
) -> None:
    player, token = await competition.players.register("carol")
    assert len(token) >= 43  # 32 random bytes
    assert (await competition.devices.authenticate(token))[0] == player
    async with competition.store.engine.connect() as conn:
        stored = (await conn.execute(text("SELECT token_hash FROM players"))).scalar_one()
    assert stored == hashlib.sha256(token.encode()).hexdigest() and token not in stored


async def test_near_tokens_and_the_stored_hash_are_refused(competition: Competition) -> None:
    _, token = await competition.players.register("dave")
    near = token[:-1] + ("A" if token[-1] != "A" else "B")
    stored = hashlib.sha256(token.encode()).hexdigest()
    for wrong in (near, token[:-1], token + "x", stored, "", token.upper()):
        with pytest.raises(CompetitionError) as refused:
            await competition.devices.authenticate(wrong)
        assert refused.value.code == "unauthorized"


async def test_a_revoked_token_signs_in_no_more(competition: Competition) -> None:
    """Signing in is the device's (its revocation counts), not the player row's."""
    player, device, token = await competition.devices.register("erin", None)
    await competition.devices.revoke(player, device.id)
    with pytest.raises(CompetitionError) as refused:
        await competition.devices.authenticate(token)
    assert refused.value.code == "unauthorized"


async def test_listing_revoking_one_and_all_others(competition: Competition, clock: Clock) -> None:
    from server.store import devices as stored

    devices = competition.devices
    ana, first, _ = await devices.register("ana", "laptop")
    for label in ("phone", "tablet", None):
        clock.advance(1)
        await stored.add(competition.store, ana.id, None, DeviceKind.LINK, label, clock())
    listed = await devices.listed(ana)
    assert [d.label for d in listed] == ["laptop", "phone", "tablet", None]  # oldest first
    await refused("not_found", "no_device", devices.revoke(ana, 10_000))
    bob, bobs, _ = await devices.register("bob", None)
    await refused("not_found", "no_device", devices.revoke(ana, bobs.id))  # not ana's
    await devices.revoke(ana, listed[1].id)
    await refused("not_found", "no_device", devices.revoke(ana, listed[1].id))  # in force no more
    assert await devices.revoke_others(ana, first.id) == 2
    assert [d.id for d in await devices.listed(ana)] == [first.id]
    assert await devices.revoke_all(ana) == [first.id]
    assert await devices.listed(ana) == [] and len(await devices.listed(bob)) == 1


async def test_a_revocation_signs_out_the_connections_held_with_the_device(
    competition: Competition,
) -> None:
    devices = competition.devices
    ana, device, _ = await devices.register("ana", None)
    told: list[str] = []
    assert await devices.hold(device, "conn-1", lambda: told.append("conn-1"))
    assert await devices.hold(device, "conn-2", lambda: told.append("conn-2"))
    devices.forget("conn-2")  # gone: never told
    await devices.revoke(ana, device.id)
    assert told == ["conn-1"]
    devices.signed_out([device.id])  # told once only
    assert told == ["conn-1"]
    assert not await devices.hold(device, "conn-3", lambda: told.append("conn-3"))
    assert told == ["conn-1"]


async def test_a_failing_sign_out_does_not_stop_the_others(competition: Competition) -> None:
    devices = competition.devices
    _ana, device, _ = await devices.register("ana", None)
    told: list[str] = []

    def broken() -> None:
        raise RuntimeError("a connection gone bad")

    devices.attach(device.id, "bad", broken)
    devices.attach(device.id, "good", lambda: told.append("good"))
    devices.signed_out([device.id])
    assert told == ["good"]


async def test_a_connection_signed_in_again_is_held_by_its_new_device(
    competition: Competition,
) -> None:
    devices = competition.devices
    _ana, first, _ = await devices.register("ana", None)
    _bob, second, _ = await devices.register("bob", None)
    told: list[str] = []
    devices.attach(first.id, "conn", lambda: told.append("as ana"))
    devices.attach(second.id, "conn", lambda: told.append("as bob"))
    devices.signed_out([first.id])
    assert told == []
    devices.signed_out([second.id])
    assert told == ["as bob"]


async def test_recheck_signs_out_what_was_revoked_while_notices_were_lost(
    competition: Competition, clock: Clock
) -> None:
    from server.store import devices as stored

    devices = competition.devices
    ana, device, _ = await devices.register("ana", None)
    told: list[str] = []
    devices.attach(device.id, "conn", lambda: told.append("out"))
    await stored.revoke(competition.store, ana.id, [device.id], None, clock())
    assert told == []  # revoked by "another node": no notice here
    await devices.recheck()
    assert told == ["out"]
