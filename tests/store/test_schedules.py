"""Schedules in the database (server/store/schedules.py), on SQLite and PostgreSQL: made,
listed, cancelled (their tournaments stay), their occurrences found, and an account's
creation time (the entry conditions' account age)."""

from __future__ import annotations

from datetime import timedelta

from server.domain.schedule import NewSchedule
from server.store import schedules as stored
from server.store.repository import Store
from tests.support.store_records import NOW, new_tournament


def daily(name: str = "Daily Gaps") -> NewSchedule:
    return NewSchedule(
        name=name,
        game="gaps",
        options={"redeals": 1},
        first_starts_at=NOW + timedelta(hours=1),
        every_s=86_400,
        duration_s=3_600,
        conditions={"min_rated": 2},
        rated=False,
    )


async def test_a_schedule_is_stored_listed_and_cancelled(store: Store) -> None:
    made = await stored.create_schedule(store, daily(), NOW)
    other = await stored.create_schedule(store, daily("Weekly"), NOW)
    assert (made.name, made.every_s, made.conditions, made.rated) == (
        "Daily Gaps",
        86_400,
        {"min_rated": 2},
        False,
    )
    assert not made.cancelled and made.created_at == NOW
    assert await stored.schedule(store, made.id) == made
    assert await stored.schedule(store, 999) is None
    assert await stored.cancel_schedule(store, made.id)
    assert not await stored.cancel_schedule(store, 999)
    assert [s.id for s in await stored.schedules(store)] == [made.id, other.id]
    assert [s.id for s in await stored.schedules(store, active_only=True)] == [other.id]
    cancelled = await stored.schedule(store, made.id)
    assert cancelled is not None and cancelled.cancelled


async def test_occurrences_are_found_by_schedule_and_number(store: Store) -> None:
    made = await stored.create_schedule(store, daily(), NOW)
    other = await stored.create_schedule(store, daily("Weekly"), NOW)
    first = await store.create_tournament(new_tournament(schedule_id=made.id, occurrence=0))
    second = await store.create_tournament(new_tournament(schedule_id=made.id, occurrence=1))
    await store.create_tournament(new_tournament())  # no schedule's
    assert await stored.occurrences(store, [made.id, other.id]) == {
        (made.id, 0): first.id,
        (made.id, 1): second.id,
    }
    assert await stored.occurrences(store, [other.id]) == {}
    assert await stored.occurrences(store, []) == {}


async def test_an_accounts_creation_time(store: Store) -> None:
    ana = await store.create_player("ana", "h", NOW)
    assert await stored.account_created_at(store, ana.id) == NOW
    assert await stored.account_created_at(store, 999) is None
