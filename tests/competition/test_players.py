"""Players: names, tokens kept only as hashes, authentication by token."""

from __future__ import annotations

import hashlib

import pytest
from sqlalchemy import text

from server.competition.errors import CompetitionError
from server.competition.service import Competition


@pytest.mark.parametrize("name", ["", "a" * 33, "al ice", "bob!", "é"])
async def test_a_bad_name_is_refused(competition: Competition, name: str) -> None:
    with pytest.raises(CompetitionError) as refused:
        await competition.players.register(name)
    assert refused.value.code == "bad_request"


async def test_names_are_unique_case_insensitively(competition: Competition) -> None:
    await competition.players.register("Alice")
    with pytest.raises(CompetitionError) as refused:
        await competition.players.register("aLICE")
    assert refused.value.code == "name_taken"


async def test_a_token_finds_its_player_and_only_the_hash_is_stored(
    competition: Competition,
) -> None:
    player, token = await competition.players.register("carol")
    assert len(token) >= 43  # 32 random bytes
    assert await competition.players.authenticate(token) == player
    async with competition.store.engine.connect() as conn:
        stored = (await conn.execute(text("SELECT token_hash FROM players"))).scalar_one()
    assert stored == hashlib.sha256(token.encode()).hexdigest() and token not in stored


async def test_near_tokens_and_the_stored_hash_are_refused(competition: Competition) -> None:
    _, token = await competition.players.register("dave")
    near = token[:-1] + ("A" if token[-1] != "A" else "B")
    stored = hashlib.sha256(token.encode()).hexdigest()
    for wrong in (near, token[:-1], token + "x", stored, "", token.upper()):
        with pytest.raises(CompetitionError) as refused:
            await competition.players.authenticate(wrong)
        assert refused.value.code == "unauthorized"
