"""Club events (v1.4, PROTOCOL.md "Club events", "Visibility and entry codes", "Team
battles"), the competition part on SQLite and PostgreSQL: a creation's club fields, a
club's limits (5 open or scheduled, 20 a day by non-admins, admins never refused),
joining as a member, with the entry code (wrong ones counted toward `codes`), a battle's
club; every refusal changes nothing (but a wrong code is counted)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import select

from server.competition.errors import CompetitionError
from server.competition.service import Competition
from server.domain.club_events import EventFields
from server.domain.model import PlayerInfo
from server.domain.schedule import NewSchedule
from server.store.models import CodeGuess, Entry, Schedule, TournamentRow
from server.store.repository import Store
from tests.competition.conftest import gaps_spec
from tests.support.harness import T0, Clock


async def _state(store: Store) -> Any:
    """Every row a club event's creation or join could change."""
    async with store._session() as s:
        tables = []
        for model in (TournamentRow, Schedule, Entry):
            rows = await s.scalars(select(model).order_by(model.id))
            tables.append([(r.id, getattr(r, "club_id", None)) for r in rows])
        return tables


async def _refused(
    comp: Competition, code: str, reason: str, call: Any, counted: int = 0
) -> CompetitionError:
    """The call refused with (code, reason), nothing changed but `counted` wrong codes."""
    before = await _state(comp.store)
    guesses = await _guesses(comp.store)
    with pytest.raises(CompetitionError) as e:
        await call
    assert (e.value.code, e.value.reason) == (code, reason)
    assert await _state(comp.store) == before
    assert await _guesses(comp.store) == guesses + counted
    return e.value


async def _guesses(store: Store) -> int:
    async with store._session() as s:
        return len(list(await s.scalars(select(CodeGuess.id))))


async def _club(comp: Competition, owner: PlayerInfo, name: str, *members: PlayerInfo) -> int:
    club = await comp.clubs.create(owner, name, None)
    assert club.invite is not None
    for m in members:
        await comp.clubs.join(m, club.invite)
    return club.id


async def _players(comp: Competition, *names: str) -> list[PlayerInfo]:
    return [(await comp.players.register(n))[0] for n in names]


async def test_fields_and_limits(comp: Competition, clock: Clock) -> None:
    ana, op = await _players(comp, "Ana", "Op")
    await comp.store.set_admin("Op")
    one = await _club(comp, ana, "One")
    two = await _club(comp, ana, "Two")
    fields = comp.club_events.fields
    for club, battle, visibility, code, reason in (
        (one, None, "secret", None, "bad_visibility"),
        (one, None, "public", "abc", "bad_entry_code"),
        (one, None, "public", "a b c d", "bad_entry_code"),
        (one, {"clubs": [one, two], "counted": 2}, "public", None, "battle_with_club"),
        (None, {"clubs": [one], "counted": 2}, "public", None, "bad_battle"),
        (None, {"clubs": [one, one], "counted": 2}, "public", None, "bad_battle"),
        (None, {"clubs": [one, two], "counted": 21}, "public", None, "bad_battle"),
        (None, {"clubs": [one, two]}, "public", None, "bad_battle"),
    ):
        await _refused(comp, "bad_request", reason, fields(ana.id, club, battle, visibility, code))
    e = await _refused(
        comp, "not_found", "no_club", fields(ana.id, None, _battle(one, 99), "public", None)
    )
    assert e.params == {"id": 99}
    made = await fields(ana.id, one, None, "unlisted", "Fr-1_x")
    assert made == EventFields(one, "unlisted", "Fr-1_x", ana.id, None)

    def spec(event: EventFields, limits: tuple[int, ...], **over: Any) -> Any:
        return gaps_spec(event=event, limits=limits, ends_at=clock() + timedelta(hours=1), **over)

    mine = EventFields(one, created_by=ana.id)
    battle = EventFields(battle=_battle(one, two), created_by=ana.id)
    made_ids = [(await comp.catalogue.create(spec(mine, (one,)))).id for _ in range(3)]
    war = await comp.catalogue.create(spec(battle, (one, two)))  # counts for both clubs
    async with comp.store._session() as s:  # no battle: SQL NULL, not JSON null
        plain = await s.scalars(select(TournamentRow.id).where(TournamentRow.battle.is_(None)))
        assert sorted(plain) == made_ids
        assert (
            await s.scalar(select(TournamentRow.id).where(TournamentRow.battle.is_not(None)))
            == war.id
        )
    weekly = NewSchedule(
        "Weekly",
        "gaps",
        {},
        T0 + timedelta(days=3),
        7 * 86400,
        3600,
        club_id=one,
        created_by=ana.id,
        rated=False,
    )
    await comp.schedules.create(weekly, (one,))
    e = await _refused(
        comp, "rate_limited", "club_events_open", comp.catalogue.create(spec(mine, (one,)))
    )
    assert e.extra == {"limit": "club_events"} and e.params == {"id": one, "max": 5}
    await _refused(comp, "rate_limited", "club_events_open", comp.schedules.create(weekly, (one,)))
    admin_event = await comp.catalogue.create(spec(EventFields(one, created_by=op.id), ()))
    assert admin_event.club_id == one  # an admin is never refused
    for tid in [*made_ids, admin_event.id]:  # closed: no longer open, still of the day
        await comp.lifecycle.close(tid)
    await _closed_events(comp.store, 15, one, ana.id, clock)  # with the battle, the schedule: 20
    e = await _refused(
        comp, "rate_limited", "club_events_day", comp.catalogue.create(spec(mine, (one,)))
    )
    assert e.params == {"id": one, "max": 20}
    await _closed_events(comp.store, 19, two, ana.id, clock)  # with the battle: 20 for Two
    e = await _refused(
        comp,
        "rate_limited",
        "club_events_day",
        comp.catalogue.create(spec(EventFields(two, created_by=ana.id), (two,))),
    )
    assert e.params == {"id": two, "max": 20}
    clock.advance(24 * 3600 + 1)
    assert (await comp.catalogue.create(spec(mine, (one,)))).club_id == one  # a day later
    await comp.accounts.delete(ana, "Ana")  # nobody left in One: its schedules cancelled
    assert [s.cancelled for s in await comp.schedules.all()] == [True]


async def _closed_events(store: Store, n: int, club: int, creator: int, clock: Clock) -> None:
    """`n` closed events of `club` made by `creator` now, as rows (a creation and a close
    each would cost far more, and the limits read only rows)."""
    now = clock()
    async with store._session() as s:
        for i in range(n):
            s.add(
                TournamentRow(
                    name=f"Past {i}",
                    game="gaps",
                    options={},
                    commitment="00",
                    starts_at=now,
                    ends_at=now,
                    join_until=now,
                    status="closed",
                    created_at=now,
                    club_id=club,
                    created_by=creator,
                )
            )
        await s.commit()


def _battle(*clubs: int) -> dict[str, Any]:
    return {"clubs": list(clubs), "counted": 2}


async def test_joining_a_club_event_a_code_and_a_battle(comp: Competition, clock: Clock) -> None:
    ana, bo, cy, di = await _players(comp, "Ana", "Bo", "Cy", "Di")
    one = await _club(comp, ana, "One", bo, cy)
    two = await _club(comp, ana, "Two", cy)
    ends = T0 + timedelta(hours=1)
    ours = await comp.catalogue.create(
        gaps_spec(event=EventFields(one, "unlisted", "Fr-1_x", ana.id), ends_at=ends)
    )
    join = comp.play.join
    e = await _refused(comp, "forbidden", "condition_club", join(di, ours.id, "Fr-1_x"))
    assert e.params == {"condition": "club"}
    await _refused(comp, "forbidden", "entry_code_needed", join(bo, ours.id))
    await _refused(comp, "forbidden", "entry_code_wrong", join(bo, ours.id, "fr-1_x"), counted=1)
    assert (await join(bo, ours.id, "Fr-1_x")).seq == 0
    comp.games.forget_tournament(ours.id)  # as on another node or after a restart
    guesses = await _guesses(comp.store)
    assert (await join(bo, ours.id, "wrong")).seq == 0  # resuming: no code checked nor counted
    assert await _guesses(comp.store) == guesses
    await comp.clubs.leave(bo, one)
    assert (await join(bo, ours.id)).seq == 0  # resuming: no code, no membership needed
    for i in range(10):  # ten wrong codes in a minute: `codes` holds
        await _refused(comp, "forbidden", "entry_code_wrong", join(cy, ours.id, f"nope{i}"), 1)
    e = await _refused(comp, "rate_limited", "code_guesses", join(cy, ours.id, "Fr-1_x"))
    assert e.extra == {"limit": "codes"}
    await _refused(comp, "rate_limited", "code_guesses", comp.clubs.join(cy, "whatever"))
    clock.advance(61)
    assert (await join(cy, ours.id, "Fr-1_x")).seq == 0

    war = await comp.catalogue.create(
        gaps_spec(event=EventFields(battle=_battle(one, two), created_by=ana.id), ends_at=ends)
    )
    await _refused(comp, "forbidden", "condition_club", join(di, war.id))
    await _refused(comp, "bad_request", "battle_club_needed", join(cy, war.id))
    e = await _refused(comp, "forbidden", "battle_club_not_yours", join(ana, war.id, None, 99))
    assert e.params == {"id": 99}
    await join(cy, war.id, None, two)
    await join(ana, war.id, "ignored", one)  # a code on a tournament without one: ignored
    async with comp.store._session() as s:
        rows = (
            await s.execute(
                select(Entry.player_id, Entry.club_id).where(Entry.tournament_id == war.id)
            )
        ).all()
    assert sorted(rows) == sorted([(cy.id, two), (ana.id, one)])
    open_one = await comp.catalogue.create(gaps_spec(ends_at=ends))
    assert (await join(di, open_one.id, None, one)).seq == 0  # `club` outside a battle: ignored
    async with comp.store._session() as s:
        assert (
            await s.scalar(select(Entry.club_id).where(Entry.tournament_id == open_one.id)) is None
        )
