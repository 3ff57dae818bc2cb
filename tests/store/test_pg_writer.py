"""The PostgreSQL writer's batches (server/store/pg_writer.py), on PostgreSQL only (it is
asyncpg's): a batch of new players, entries and actions in one transaction, each job's
outcome its own; a closed tournament's writes left out; a duplicate action reported
alone after the batch is written again skipping it; a row the database refuses otherwise
(a foreign key) making the batch commit job by job. The protocol both writers keep:
test_writer.py."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import timedelta

import pytest

from server.domain.model import DuplicateAction, NameErased, TournamentClosed, canonical_json
from server.store import accounts, devices
from server.store.pg_writer import PgWriter
from server.store.repository import Store
from server.store.writer import ActionJob, Conflict, EntryJob, NewPlayer, PlayerJob
from tests.support.store_records import NOW, new_tournament, playing

NAIVE = NOW.replace(tzinfo=None)


@pytest.fixture
async def pg_store(pg_url: str) -> AsyncIterator[Store]:
    store = await Store.open(pg_url)
    try:
        yield store
    finally:
        await store.close()


def player(name: str, token: str) -> PlayerJob:
    return PlayerJob(name, name.lower(), token, NAIVE, "phone")


def entry(tournament_id: int, player_id: int) -> EntryJob:
    return EntryJob(tournament_id, player_id, NAIVE, NAIVE + timedelta(minutes=15), playing())


def action(tournament_id: int, entry_id: int, seq: int) -> ActionJob:
    text = canonical_json({"n": seq})
    return ActionJob(tournament_id, entry_id, seq, seq * 10, text, playing(seq, seq))


async def test_a_batch_writes_players_entries_and_actions_each_with_its_outcome(
    pg_store: Store,
) -> None:
    writer = PgWriter(pg_store.engine)
    t = await pg_store.create_tournament(new_tournament())
    jobs = [player("Ana", "h-a"), player("Bob", "h-b"), player("ANA", "h-c")]
    ana, bob, taken = await writer._commit(jobs)
    assert isinstance(ana, NewPlayer) and isinstance(bob, NewPlayer)
    assert isinstance(taken, Conflict) and "'ANA'" in str(taken)
    found = await pg_store.player_by_token_hash("h-a")
    assert found is not None and found.id == ana.player_id
    assert [d.id for d in await devices.in_force(pg_store, found.id, NOW)] == [ana.device_id]
    e, again = await writer._commit([entry(t.id, ana.player_id), entry(t.id, ana.player_id)])
    assert isinstance(e, int) and isinstance(again, Conflict)
    assert await writer._commit([action(t.id, e, 1), action(t.id, e, 2)]) == [None, None]
    stored = await pg_store.entry(t.id, found.id)
    assert stored is not None and stored.seq == 2
    assert [a.seq for a in await pg_store.actions(e)] == [1, 2]


async def test_a_duplicate_or_a_closed_tournament_fails_alone(pg_store: Store) -> None:
    writer = PgWriter(pg_store.engine)
    t = await pg_store.create_tournament(new_tournament())
    closed = await pg_store.create_tournament(new_tournament(name="Closed"))
    (made,) = await writer._commit([player("Ana", "h-a")])
    assert isinstance(made, NewPlayer)
    ana = made.player_id
    e, late = await writer._commit([entry(t.id, ana), entry(closed.id, ana)])
    assert isinstance(e, int) and late is not None
    await pg_store.close_tournament(closed.id, NOW)
    await writer._commit([action(t.id, e, 1)])
    outcomes = await writer._commit(
        [action(t.id, e, 1), action(t.id, e, 2), action(closed.id, e, 1), entry(closed.id, ana)]
    )
    assert isinstance(outcomes[0], DuplicateAction) and outcomes[1] is None
    assert isinstance(outcomes[2], TournamentClosed) and isinstance(outcomes[3], TournamentClosed)
    assert [a.seq for a in await pg_store.actions(e)] == [1, 2]


async def test_a_row_the_database_refuses_makes_the_batch_go_job_by_job(
    pg_store: Store,
) -> None:
    writer = PgWriter(pg_store.engine)
    t = await pg_store.create_tournament(new_tournament())
    outcomes = await writer._commit([player("Ana", "h-a"), entry(t.id, 10_000)])  # no player
    assert isinstance(outcomes[0], NewPlayer)
    assert isinstance(outcomes[1], Conflict) and "foreign key" in str(outcomes[1])
    assert await pg_store.player_by_token_hash("h-a") is not None


async def test_a_value_too_long_for_its_column_fails_alone(pg_store: Store) -> None:
    """asyncpg's data exception (SQLSTATE 22001) arrives as a plain DBAPIError: still a
    refused row, so the batch goes job by job and the other jobs are written."""
    writer = PgWriter(pg_store.engine)
    too_long = PlayerJob("B" * 40, "b" * 80, "h-b", NAIVE, "phone")  # name_key is 64 wide
    outcomes = await writer._commit([player("Ana", "h-a"), too_long, player("Cy", "h-c")])
    assert isinstance(outcomes[0], NewPlayer) and isinstance(outcomes[2], NewPlayer)
    assert not isinstance(outcomes[1], NewPlayer) and "too long" in str(outcomes[1])
    assert await pg_store.player_by_token_hash("h-a") is not None
    assert await pg_store.player_by_token_hash("h-b") is None


async def test_an_erased_name_is_refused_in_the_batch(pg_store: Store) -> None:
    writer = PgWriter(pg_store.engine)
    (ana,) = await writer._commit([player("Ana", "h-a")])
    assert isinstance(ana, NewPlayer)
    await accounts.erase(pg_store, ana.player_id, f"deleted-{ana.player_id}", NOW)
    refused, bob = await writer._commit([player("ANA", "h-new"), player("Bob", "h-b")])
    assert isinstance(refused, NameErased) and isinstance(bob, NewPlayer)
    assert await pg_store.player_by_token_hash("h-new") is None
