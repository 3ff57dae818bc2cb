"""Series on a real store with a driven clock: occurrences created once, a period ahead,
skipped after downtime, kept after a cancel; entry conditions and bots at the join."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

import pytest

from server.competition.errors import CompetitionError
from server.competition.service import Competition
from server.domain.model import PlayerInfo
from server.domain.schedule import NewSchedule
from server.store import schedules as stored
from server.store.repository import Store
from tests.competition.conftest import Recorder, gaps_spec
from tests.support.harness import T0, Clock


def daily(**over: Any) -> NewSchedule:
    fields: dict[str, Any] = dict(
        name="Minutely Gaps",
        game="gaps",
        options={"redeals": 1},
        first_starts_at=T0 + timedelta(seconds=10),
        every_s=60,
        duration_s=40,
    )
    fields.update(over)
    return NewSchedule(**fields)


async def occurrences(store: Store, schedule_id: int) -> dict[int, int]:
    made = await stored.occurrences(store, [schedule_id])
    return {k: tid for (_, k), tid in made.items()}


async def test_create_publishes_what_is_due_and_the_tick_keeps_a_period_ahead(
    competition: Competition, clock: Clock
) -> None:
    series = competition.schedules
    s = await series.create(daily())
    made = await occurrences(competition.store, s.id)
    assert sorted(made) == [1, 2]  # #1 in 10 s, #2 in 70 s (within a period and the lead)
    for k, tid in made.items():
        t = await competition.catalogue.find(tid)
        assert t.name == f"Minutely Gaps #{k}" and (t.schedule_id, t.occurrence) == (s.id, k)
        assert t.starts_at == T0 + timedelta(seconds=10 + 60 * (k - 1))
        assert t.ends_at - t.starts_at == timedelta(seconds=40)
        assert t.options == {"redeals": 1, "redeal": "keep_runs", "winnable": False} and t.rated
    for _ in range(120):  # ten minutes of ticks every 5 s
        clock.advance(5)
        await competition.lifecycle.tick()
    made = await occurrences(competition.store, s.id)
    assert sorted(made) == list(range(1, 13))  # created once each, never twice
    for tid in made.values():
        t = await competition.catalogue.find(tid)
        if t.occurrence != 1:  # #1 started sooner than a period after the schedule was made
            assert t.starts_at - t.created_at >= timedelta(seconds=60), t


async def test_concurrent_ensures_create_each_occurrence_once(store: Store, clock: Clock) -> None:
    nodes = [Competition.build(store, Recorder(), clock) for _ in range(3)]
    s = await stored.create_schedule(store, daily(), clock())
    for _ in range(5):
        await asyncio.gather(*(n.schedules.ensure_schedule(s, clock()) for n in nodes))
        clock.advance(60)
    made = await occurrences(store, s.id)
    assert sorted(made) == [1, 2, 3, 4, 5, 6]
    assert len(await store.tournaments()) == 6


async def test_downtime_skips_missed_occurrences_never_creates_them_in_the_past(
    store: Store, clock: Clock
) -> None:
    first = Competition.build(store, Recorder(), clock)
    s = await first.schedules.create(daily())
    assert sorted(await occurrences(store, s.id)) == [1, 2]
    clock.advance(4 * 60 + 15)  # down: #3 (190..230) and #4 (250..290) pass unseen
    restarted = Competition.build(store, Recorder(), clock)
    await restarted.lifecycle.start()
    made = await occurrences(store, s.id)
    assert 3 not in made and 4 not in made
    assert sorted(made) == [1, 2, 5, 6]  # #5 runs (250..290), #6 (310) is a period ahead
    for k in (5, 6):
        t = await restarted.catalogue.find(made[k])
        assert t.ends_at > clock() and t.created_at == clock()


async def test_cancel_stops_new_occurrences_and_keeps_those_created(
    competition: Competition, clock: Clock
) -> None:
    series = competition.schedules
    s = await series.create(daily())
    cancelled = await series.cancel(s.id)
    assert cancelled.cancelled
    clock.advance(600)
    await series.ensure(clock())
    assert sorted(await occurrences(competition.store, s.id)) == [1, 2]
    with pytest.raises(CompetitionError) as err:
        await series.cancel(999)
    assert err.value.code == "not_found"


@pytest.mark.parametrize(
    ("over", "needle"),
    [
        (dict(every_s=59), "every_s"),
        (dict(duration_s=0), "duration_s"),
        (dict(join_for_s=41), "join_for_s"),
        (dict(game="chess"), "unknown game"),
        (dict(options={"redeals": -1}), "redeals"),
        (dict(conditions={"min_age": 3}), "unknown condition"),
        (dict(conditions={"bots": "no"}), "bots"),
        (dict(name=""), "name"),
        (dict(beacon={"network": "nowhere"}), "unknown beacon network"),
    ],
)
async def test_bad_schedules_are_refused_naming_the_problem_and_store_nothing(
    competition: Competition, over: dict[str, Any], needle: str
) -> None:
    with pytest.raises(CompetitionError) as err:
        await competition.schedules.create(daily(**over))
    assert err.value.code == "bad_request" and needle in err.value.message
    assert await stored.schedules(competition.store) == []
    assert await competition.store.tournaments() == []


# -- entry conditions ------------------------------------------------------------
async def _tournament_with(competition: Competition, **conditions: Any) -> int:
    from server.domain.schedule import SeriesFields

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
    from server.domain.schedule import SeriesFields

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
