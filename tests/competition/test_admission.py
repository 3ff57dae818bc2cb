"""Entry conditions at the join (server/competition/admission.py): the facts read from the
store (account age, rated tournaments, rating) judged by domain/conditions; a refusal is
`forbidden` naming the condition, and resuming an entry is always allowed."""

from __future__ import annotations

from typing import Any

import pytest

from server.competition.admission import admit
from server.competition.errors import CompetitionError
from server.competition.service import Competition
from server.domain.model import PlayerInfo
from server.domain.schedule import SeriesFields
from tests.competition.conftest import gaps_spec
from tests.support.harness import Clock


async def _tournament_with(competition: Competition, **conditions: Any) -> int:

    t = await competition.catalogue.create(gaps_spec(series=SeriesFields(conditions=conditions)))
    return t.id


async def _refusal(competition: Competition, player: PlayerInfo, tid: int) -> str:
    with pytest.raises(CompetitionError) as err:
        await competition.play.join(player, tid)
    assert err.value.code == "forbidden"
    return err.value.message


async def test_account_age_refuses_a_new_account_then_allows_it(
    competition: Competition, alice: PlayerInfo, clock: Clock
) -> None:
    tid = await _tournament_with(competition, min_account_age_s=3600)
    assert "min_account_age_s" in await _refusal(competition, alice, tid)
    assert await competition.store.entry(tid, alice.id) is None  # nothing changed
    clock.advance(3600)
    snap = await competition.play.join(alice, tid)
    assert snap.seq == 0


@pytest.mark.parametrize(
    ("conditions", "name"),
    [({"min_rated": 1}, "min_rated"), ({"min_rating": 1}, "min_rating")],
)
async def test_rating_conditions_refuse_a_never_rated_player(
    competition: Competition, alice: PlayerInfo, conditions: dict[str, Any], name: str
) -> None:
    tid = await _tournament_with(competition, **conditions)
    assert name in await _refusal(competition, alice, tid)


async def test_max_rating_and_zero_minimums_allow_a_new_player(
    competition: Competition, alice: PlayerInfo
) -> None:
    tid = await _tournament_with(competition, max_rating=10, min_rated=0, min_rating=0)
    assert (await competition.play.join(alice, tid)).seq == 0
    low = await _tournament_with(competition, max_rating=-1)
    assert "max_rating" in await _refusal(competition, alice, low)


async def test_bots_kept_out_where_bots_is_false_and_let_in_by_default(
    competition: Competition, clock: Clock
) -> None:
    bot, _ = await competition.players.register_bot("robo")
    assert bot.bot
    closed_to_bots = await _tournament_with(competition, bots=False)
    assert "bots" in await _refusal(competition, bot, closed_to_bots)
    open_to_all = await _tournament_with(competition)
    assert (await competition.play.join(bot, open_to_all)).seq == 0


async def test_resuming_an_entry_is_always_allowed(
    competition: Competition, alice: PlayerInfo, clock: Clock
) -> None:

    t = await competition.catalogue.create(
        gaps_spec(series=SeriesFields(conditions={"min_account_age_s": 0}))
    )
    await competition.play.join(alice, t.id)
    competition.games.forget_tournament(t.id)  # as after a restart
    # the conditions tighten (as if the operator's row said so): the entry still resumes
    async with competition.store._session() as s:
        from sqlalchemy import update

        from server.store.models import TournamentRow

        await s.execute(
            update(TournamentRow)
            .where(TournamentRow.id == t.id)
            .values(conditions={"bots": False, "min_account_age_s": 10**9})
        )
        await s.commit()
    await competition.catalogue.reload(t.id)
    assert (await competition.play.join(alice, t.id)).seq == 0


async def test_a_rated_players_rating_is_judged_by_the_shown_value(
    competition: Competition, alice: PlayerInfo, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    from server.competition import admission

    async def rated(store: object, game: str, ids: list[int]) -> dict[int, Any]:
        assert game == "gaps" and ids == [alice.id]
        return {alice.id: (40.0, 5.0, 3)}  # shown: 40 - 3 * 5 = 25

    monkeypatch.setattr(admission.stored_ratings, "current", rated)
    t = competition.catalogue.get(await _tournament_with(competition, min_rated=3, min_rating=25))
    await admit(competition.store, alice, t, clock())
    too_high = competition.catalogue.get(await _tournament_with(competition, max_rating=24))
    with pytest.raises(CompetitionError) as err:
        await admit(competition.store, alice, too_high, clock())
    assert err.value.reason == "condition_max_rating"


async def test_without_conditions_anyone_is_admitted(
    competition: Competition, clock: Clock
) -> None:
    bot, _ = await competition.players.register_bot("robo")
    t = await competition.catalogue.create(gaps_spec())
    assert not t.conditions
    await admit(competition.store, bot, t, clock())
