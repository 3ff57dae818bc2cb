"""Players: names, tokens kept only as hashes, authentication by token."""

from __future__ import annotations

import pytest

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
