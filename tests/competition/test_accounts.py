"""Deleting an account (server/competition/accounts.py): the name goes (the pseudonym
`deleted-<id>`, the old name never registered again), every device is revoked and
signed out, every entry still playing is resigned by a logged resign, and every
tournament touched is read again."""

from __future__ import annotations

import pytest

from server.competition.errors import CompetitionError
from server.competition.service import Competition
from server.games.base import Status
from tests.competition.conftest import gaps_spec


async def test_a_deletion_must_be_confirmed_with_the_exact_name(
    competition: Competition,
) -> None:
    ana, _, token = await competition.devices.register("Ana", None)
    for wrong in ("ana", "Ana ", ""):
        with pytest.raises(CompetitionError) as err:
            await competition.accounts.delete(ana, wrong)
        assert (err.value.code, err.value.reason) == ("bad_request", "confirm_name")
    assert await competition.devices.authenticate(token)  # nothing happened


async def test_a_deleted_account_keeps_its_games_under_the_pseudonym(
    competition: Competition,
) -> None:
    playing = await competition.catalogue.create(gaps_spec(name="Open"))
    finished = await competition.catalogue.create(gaps_spec(name="Closed"))
    ana, device, token = await competition.devices.register("Ana", "phone")
    await competition.play.join(ana, playing.id)
    await competition.play.join(ana, finished.id)
    await competition.lifecycle.close(finished.id)
    signed_out: list[int] = []
    competition.devices.attach(device.id, "conn", lambda: signed_out.append(device.id))
    renamed: list[int] = []
    competition.accounts.renamed = renamed.append

    await competition.accounts.delete(ana, "Ana")

    assert signed_out == [device.id]
    with pytest.raises(CompetitionError) as err:
        await competition.devices.authenticate(token)
    assert err.value.code == "unauthorized"
    gone = await competition.store.player_by_name(f"deleted-{ana.id}")
    assert gone is not None and gone.id == ana.id
    assert await competition.store.player_by_name("Ana") is None
    entry = await competition.store.entry(playing.id, ana.id)
    assert entry is not None and entry.figures.status == Status.RESIGNED.value
    assert entry.seq == 1  # a logged resign
    closed_entry = await competition.store.entry(finished.id, ana.id)
    assert closed_entry is not None and closed_entry.seq == 0  # a closed game stays
    assert sorted(renamed) == sorted([playing.id, finished.id])


async def test_the_old_name_is_never_registered_again_and_a_second_deletion_is_refused(
    competition: Competition,
) -> None:
    ana, _, _ = await competition.devices.register("Ana", None)
    await competition.accounts.delete(ana, "Ana")
    for name in ("Ana", "ANA"):
        with pytest.raises(CompetitionError) as taken:
            await competition.devices.register(name, None)
        assert taken.value.code == "name_taken"
    with pytest.raises(CompetitionError) as again:
        await competition.accounts.delete(ana, "Ana")
    assert (again.value.code, again.value.reason) == ("unauthorized", "unknown_token")
