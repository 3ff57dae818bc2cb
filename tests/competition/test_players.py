"""Players: names, tokens kept only as hashes, authentication by token."""

from __future__ import annotations

import hashlib

import pytest
from sqlalchemy import text

from server.competition.errors import CompetitionError
from server.competition.service import Competition


@pytest.mark.parametrize(
    "name", ["", "a" * 33, "al ice", "bob!", "J\u043e\u00e3o", "\u0301a", "\u0661\u0662", "a.b"]
)
async def test_a_bad_name_is_refused(competition: Competition, name: str) -> None:
    with pytest.raises(CompetitionError) as refused:
        await competition.players.register(name)
    assert refused.value.code == "bad_request"


async def test_names_are_unique_case_insensitively(competition: Competition) -> None:
    await competition.players.register("Alice")
    with pytest.raises(CompetitionError) as refused:
        await competition.players.register("aLICE")
    assert refused.value.code == "name_taken"


@pytest.mark.parametrize("name", ["João", "Muñoz", "Ærø", "José", "İsmail", "山田Taro", "Ελένη"])
async def test_names_in_the_players_alphabets_register(competition: Competition, name: str) -> None:
    player, _ = await competition.players.register(name)
    assert player.name == name
    assert (await competition.store.player_by_name(name.upper())) == player


async def test_a_name_is_stored_nfc_and_its_other_forms_are_taken(
    competition: Competition,
) -> None:
    player, _ = await competition.players.register("Joa\u0303o")  # decomposed ã
    assert player.name == "Jo\u00e3o"
    for same in ("JOÃO", "jo\u00e3o", "JOA\u0303O"):
        with pytest.raises(CompetitionError) as refused:
            await competition.players.register(same)
        assert refused.value.code == "name_taken"


async def test_a_mixed_script_name_is_refused_saying_why(competition: Competition) -> None:
    with pytest.raises(CompetitionError) as refused:
        await competition.players.register("J\u043e\u00e3o")  # a Cyrillic о
    assert refused.value.code == "bad_request"
    assert "Cyrillic and Latin" in refused.value.message
    assert await competition.store.player_by_name("J\u043e\u00e3o") is None


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


async def test_registering_gives_the_device_as_the_token_reads_it(
    competition: Competition,
) -> None:
    """The device `register` answers with is made by the writer (no read back): the
    same as signing in with its token finds."""
    player, device, token = await competition.devices.register("fay", "phone")
    assert await competition.devices.authenticate(token) == (player, device)
    assert device.label == "phone" and device.kind.value == "token"


async def test_an_erased_name_is_taken_for_a_player_and_a_bot(competition: Competition) -> None:
    """Said with the name as given; a bad name stays `bad_request`."""
    gus, _, _ = await competition.devices.register("Gus", None)
    await competition.accounts.delete(gus, "Gus")
    for bot in (False, True):
        with pytest.raises(CompetitionError) as refused:
            await competition.devices.register("GUS", None, bot)
        assert (refused.value.code, refused.value.params) == ("name_taken", {"name": "GUS"})
        assert str(refused.value) == "the name 'GUS' is taken"
    with pytest.raises(CompetitionError) as refused:
        await competition.devices.register("g u s", None)
    assert refused.value.code == "bad_request"
