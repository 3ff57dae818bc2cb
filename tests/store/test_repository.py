"""The repository on SQLite and PostgreSQL: tournaments, entries, the action log (players:
test_players.py)."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest
from sqlalchemy import text
from sqlalchemy.exc import IntegrityError

from server.domain.model import (
    DuplicateAction,
    EntryExists,
    Status,
    Summary,
    canonical_json,
)
from server.store.repository import Store
from tests.support.factories import figures
from tests.support.store_records import NOW, new_tournament, playing, summary


async def test_tournament_keeps_seed_apart(store: Store) -> None:
    t = await store.create_tournament(new_tournament())
    assert t.id and t.commitment == "c" * 64 and t.status == "open"
    assert not hasattr(t, "seed")
    assert "5e" * 32 not in repr(await store.tournaments())
    assert await store.secret_seed(t.id) == "5e" * 32
    assert (await store.tournament(t.id)).starts_at == NOW
    assert await store.tournament(999) is None
    assert await store.count_tournaments() == 1


async def test_entries_append_and_reload(store: Store) -> None:
    p = await store.create_player("bob", "hb", NOW)
    t = await store.create_tournament(new_tournament())
    e = await store.create_entry(t.id, p, NOW, NOW + timedelta(minutes=15), playing())
    with pytest.raises(EntryExists):
        await store.create_entry(t.id, p, NOW, NOW, playing())
    for seq in (1, 2, 3):
        await store.append(
            t.id,
            e.id,
            seq,
            seq * 100,
            canonical_json({"kind": "move", "n": seq}),
            playing(seq, seq),
        )
    with pytest.raises(DuplicateAction):
        await store.append(t.id, e.id, 2, 999, canonical_json({"kind": "x"}), playing(2))
    log = await store.actions(e.id)
    assert [(a.seq, a.at_ms, a.action["n"]) for a in log] == [(1, 100, 1), (2, 200, 2), (3, 300, 3)]
    again = await store.entry(t.id, p.id)
    assert again.seq == 3 and again.figures.progress == 3 and again.player_name == "bob"
    assert [x.id for x in await store.entries(t.id)] == [e.id]
    assert (await store.tournaments())[0].entrants == 1


async def test_append_is_durable_when_it_returns(db_url: str) -> None:
    store = await Store.open(db_url)
    p = await store.create_player("carol", "hc", NOW)
    t = await store.create_tournament(new_tournament())
    e = await store.create_entry(t.id, p, NOW, NOW, playing())
    await store.append(
        t.id,
        e.id,
        1,
        5,
        canonical_json({"kind": "resign"}),
        Summary(figures(Status.RESIGNED, time_ms=5), 1, "ab" * 32),
    )
    other = await Store.open(db_url, migrate=False)  # a second connection pool sees it
    try:
        assert [a.seq for a in await other.actions(e.id)] == [1]
        assert (await other.entry(t.id, p.id)).figures.status == "resigned"
    finally:
        await other.close()
        await store.close()


async def test_group_commit_batches_concurrent_appends(store: Store) -> None:
    t = await store.create_tournament(new_tournament())
    entries = []
    for i in range(40):
        p = await store.create_player(f"p{i}", f"h{i}", NOW)
        entries.append(await store.create_entry(t.id, p, NOW, NOW, playing()))
    for seq in (1, 2, 3):
        await asyncio.gather(
            *(
                store.append(t.id, e.id, seq, seq, canonical_json({"s": seq}), playing(seq))
                for e in entries
            )
        )
    assert store.writer.appended == 120
    assert store.writer.batches < 120  # many appends share a commit
    assert store.writer.largest_batch > 1
    for e in entries:
        assert [a.seq for a in await store.actions(e.id)] == [1, 2, 3]


async def test_a_duplicate_in_a_batch_fails_alone(store: Store) -> None:
    t = await store.create_tournament(new_tournament())
    ids = []
    for i in range(5):
        p = await store.create_player(f"q{i}", f"g{i}", NOW)
        ids.append((await store.create_entry(t.id, p, NOW, NOW, playing())).id)
    await store.append(t.id, ids[0], 1, 1, canonical_json({}), playing(1))
    results = await asyncio.gather(
        *(store.append(t.id, i, 1, 1, canonical_json({}), playing(1)) for i in ids),
        return_exceptions=True,
    )
    assert isinstance(results[0], DuplicateAction)
    assert results[1:] == [None] * 4


async def test_database_itself_rejects_duplicate_seq(store: Store) -> None:
    p = await store.create_player("dan", "hd", NOW)
    t = await store.create_tournament(new_tournament())
    e = await store.create_entry(t.id, p, NOW, NOW, playing())
    sql = text("INSERT INTO actions (entry_id, seq, at_ms, action) VALUES (:e, 1, 0, '{}')")
    async with store.engine.begin() as conn:
        await conn.execute(sql, {"e": e.id})
    with pytest.raises(IntegrityError):
        async with store.engine.begin() as conn:
            await conn.execute(sql, {"e": e.id})


async def test_close_times_out_running_games(store: Store) -> None:
    t = await store.create_tournament(new_tournament())
    a = await store.create_player("a", "ha", NOW)
    b = await store.create_player("b", "hb2", NOW)
    ea = await store.create_entry(t.id, a, NOW, NOW + timedelta(hours=1), playing())
    await store.create_entry(
        t.id, b, NOW, NOW, Summary(figures(Status.WON, 48, 0, 58, 10), 5, "cd" * 32)
    )
    c = await store.create_player("c", "hc", NOW)  # its deadline came before the close
    ec = await store.create_entry(t.id, c, NOW, NOW + timedelta(minutes=10), playing())
    closed = NOW + timedelta(minutes=30)
    timed_out = await store.close_tournament(t.id, closed)
    assert timed_out == [(ea.id, 1_800_000), (ec.id, 600_000)]
    info = await store.tournament(t.id)
    assert info.status == "closed" and info.closed_at == closed
    rows = {e.player_name: e for e in await store.entries(t.id)}
    assert rows["a"].figures.status == "timed_out" and rows["a"].figures.time_ms == 1800000
    assert rows["c"].figures.status == "timed_out" and rows["c"].figures.time_ms == 600_000
    assert rows["b"].figures.status == "won" and rows["b"].figures.time_ms == 10  # unchanged
    assert [t.status for t in await store.tournaments()] == ["closed"]


async def test_no_action_commits_after_the_close(store: Store) -> None:
    from server.domain.model import TournamentClosed

    t = await store.create_tournament(new_tournament())
    other = await store.create_tournament(new_tournament(name="Other"))
    p = await store.create_player("late", "hl", NOW)
    e = await store.create_entry(t.id, p, NOW, NOW, playing())
    e2 = await store.create_entry(other.id, p, NOW, NOW, playing())
    await store.append(t.id, e.id, 1, 1, canonical_json({}), playing(1))
    assert await store.close_tournament(t.id, NOW) == [(e.id, 0)]
    assert await store.close_tournament(t.id, NOW) is None  # already closed: nothing changes
    results = await asyncio.gather(
        store.append(t.id, e.id, 2, 2, canonical_json({}), playing(2)),
        store.append(other.id, e2.id, 1, 1, canonical_json({}), playing(1)),
        return_exceptions=True,
    )
    assert isinstance(results[0], TournamentClosed) and results[1] is None
    assert [a.seq for a in await store.actions(e.id)] == [1]
    assert [a.seq for a in await store.actions(e2.id)] == [1]
    assert (await store.entry(t.id, p.id)).figures.status == "timed_out"
    newcomer = await store.create_player("newcomer", "hn", NOW)  # no entry after the close
    with pytest.raises(TournamentClosed):
        await store.create_entry(t.id, newcomer, NOW, NOW, playing())
    assert [x.player_name for x in await store.entries(t.id)] == ["late"]


async def test_log_tails_are_the_actions_after_each_cached_head(store: Store) -> None:
    """One query: for every entry of a tournament, the actions after its row's cached
    head (log_seq), or its whole log when the row has no head (written before receipts)."""
    t = await store.create_tournament(new_tournament())
    other = await store.create_tournament(new_tournament(name="Other"))
    names = ("behind", "checkpointed", "current", "old", "idle", "elsewhere")
    entries = {}
    for name in names:
        p = await store.create_player(name, f"h-{name}", NOW)
        where = other if name == "elsewhere" else t
        entries[name] = await store.create_entry(where.id, p, NOW, NOW, summary(log_hash="a0" * 32))
    checkpoints = {"checkpointed": {2}, "current": {3}, "old": {1, 2, 3}}
    for name, e in entries.items():
        for seq in range(1, 4) if name != "idle" else ():
            head = f"{seq:064x}" if seq in checkpoints.get(name, ()) else ""
            s = summary(seq=seq, log_hash=head)
            await store.append(e.tournament_id, e.id, seq, 10 * seq, canonical_json({"n": seq}), s)
    async with store.engine.begin() as conn:  # as a row written before receipts: no head
        await conn.execute(
            text("UPDATE entries SET log_hash = '' WHERE id = :e"), {"e": entries["old"].id}
        )
    assert (await store.entry_by_id(entries["old"].id)).log_seq == 3  # (and a stale seq)

    tails = await store.log_tails(t.id)
    got = {
        e.player_name: [(a.seq, a.at_ms, a.action) for a in tails.get(e.id, [])]
        for e in await store.entries(t.id)
    }
    assert got == {
        "behind": [(1, 10, {"n": 1}), (2, 20, {"n": 2}), (3, 30, {"n": 3})],
        "checkpointed": [(3, 30, {"n": 3})],
        "current": [],
        "old": [(1, 10, {"n": 1}), (2, 20, {"n": 2}), (3, 30, {"n": 3})],
        "idle": [],
    }
    assert set(tails) <= {e.id for e in entries.values() if e.tournament_id == t.id}


async def test_a_game_past_its_deadline_is_due_whoever_wrote_its_row(store: Store) -> None:
    """Rows the group-commit writers store compare with the store's own queries: on
    SQLite the writer process once wrote times as "…T…" text, which sorts after any
    "… …" time, so no game was ever due."""
    p = await store.create_player("dee", "hd", NOW)
    t = await store.create_tournament(new_tournament())
    e = await store.create_entry(t.id, p, NOW, NOW + timedelta(minutes=1), playing())
    assert await store.due_entries(NOW + timedelta(seconds=59)) == []
    due = await store.due_entries(NOW + timedelta(minutes=1, seconds=1))
    assert [d.id for d in due] == [e.id]
    assert due[0].started_at == NOW and due[0].deadline == NOW + timedelta(minutes=1)
