"""The one writer interface: both group-commit writers keep the `Writer` protocol, and on
both backends new players and new entries are committed in the same batches as actions,
one transaction per batch, a refused write failing alone."""

from __future__ import annotations

import asyncio
import importlib.util
import subprocess
import sys
import textwrap
from collections.abc import Awaitable
from pathlib import Path

import pytest
from sqlalchemy import event, insert, select, text, update

from server.domain.model import (
    DuplicateAction,
    EntryExists,
    NameErased,
    NameTaken,
    PlayerInfo,
    Status,
    TournamentClosed,
    TournamentStatus,
    canonical_json,
)
from server.store import accounts as stored_accounts
from server.store import db
from server.store import devices as stored_devices
from server.store.models import Device, ErasedName, Player
from server.store.pg_writer import PgWriter
from server.store.repository import Store
from server.store.sqlite_writer import SqliteWriter
from server.store.writer import Conflict, NewPlayer, Writer
from tests.support.store_records import NOW, new_tournament, playing, summary

ROOT = Path(__file__).resolve().parents[2]


class Counted:
    """A store built with an on_batch hook, counting batches and (engine) commits."""

    def __init__(self, url: str) -> None:
        self.sizes: list[int] = []
        self.commits = 0
        self.store = Store(db.make_engine(url), self.sizes.append)
        event.listen(self.store.engine.sync_engine, "commit", self._commit)

    def _commit(self, _conn: object) -> None:
        self.commits += 1

    @property
    def on_postgresql(self) -> bool:
        return self.store.engine.dialect.name == "postgresql"

    def reset(self) -> None:
        self.sizes.clear()
        self.commits = 0


async def act(store: Store, tournament_id: int, entry_id: int, seq: int, at_ms: int) -> None:
    """store.append in a coroutine: gathered with the other writes, it is queued when its
    task first runs, as theirs are (a bare append queues at once, when called)."""
    action = canonical_json({"n": at_ms})
    await store.append(tournament_id, entry_id, seq, at_ms, action, playing(seq))


@pytest.fixture
async def counted(db_url: str):
    await asyncio.to_thread(db.migrate, db_url)
    c = Counted(db_url)
    yield c
    await c.store.close()


# -- the protocol ------------------------------------------------------------
def test_both_writers_satisfy_the_protocol_statically(tmp_path: Path) -> None:
    """mypy --strict accepts conformance.py's typed assignments, and rejects the same
    assignment of a writer whose new_player lost a parameter (so the check can fail)."""
    if importlib.util.find_spec("mypy") is None:
        pytest.skip("mypy is not installed")
    broken = tmp_path / "broken_writer.py"
    broken.write_text(
        textwrap.dedent(
            """
            import asyncio
            from server.store.sqlite_writer import SqliteWriter
            from server.store.writer import Writer

            class Broken(SqliteWriter):
                def new_player(self, name: str) -> asyncio.Future[int]:  # type: ignore[override]
                    raise NotImplementedError

            w: Writer = Broken("x")
            """
        )
    )
    done = subprocess.run(
        [
            sys.executable,
            *("-m", "mypy", "--strict", "--follow-imports=silent"),
            str(ROOT / "tests" / "store" / "conformance.py"),
            str(broken),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    errors = [line for line in done.stdout.splitlines() if ": error:" in line]
    assert errors, done.stdout + done.stderr
    # (by file name: mypy's cache may replay a previous run's path of the same module)
    assert all(line.split(":")[0].endswith("broken_writer.py") for line in errors), done.stdout
    assert any('"Broken"' in line and '"Writer"' in line for line in errors), done.stdout


async def test_each_writer_keeps_the_protocol(counted: Counted) -> None:
    store = counted.store
    writer: Writer = store.writer
    assert isinstance(writer, PgWriter if counted.on_postgresql else SqliteWriter)
    t = await store.create_tournament(new_tournament())

    player = writer.new_player("Ann", "ann", "h-ann", NOW)
    assert asyncio.isfuture(player)  # a plain future: the hot path awaits no coroutine
    made = await player
    assert isinstance(made, NewPlayer) and type(made.device_id) is int
    ann = made.player_id
    with pytest.raises(Conflict):
        await writer.new_player("ANN", "ann", "h-other", NOW)  # the name's key
    with pytest.raises(Conflict):
        await writer.new_player("Bo", "bo", "h-ann", NOW)  # the token's hash
    entry = await writer.new_entry(t.id, ann, NOW, NOW, playing())
    assert isinstance(entry, int)
    with pytest.raises(Conflict):
        await writer.new_entry(t.id, ann, NOW, NOW, playing())
    assert await writer.append(t.id, entry, 1, 10, canonical_json({"n": 1}), playing(1)) is None
    with pytest.raises(DuplicateAction):
        await writer.append(t.id, entry, 1, 10, canonical_json({"n": 1}), playing(1))
    with pytest.raises(ValueError, match="naive"):
        writer.new_player("Cy", "cy", "h-cy", NOW.replace(tzinfo=None))
    assert writer.appended == 1

    queued = [
        writer.append(t.id, entry, seq, seq, canonical_json({"n": seq}), playing(seq))
        for seq in (2, 3, 4)
    ]
    await writer.close()  # commits what is queued first
    assert all(f.done() and f.result() is None for f in queued)
    await writer.close()  # twice is harmless
    await writer.append(t.id, entry, 5, 5, canonical_json({"n": 5}), playing(5))  # restarts
    assert writer.appended == 5
    assert [a.seq for a in await store.actions(entry)] == [1, 2, 3, 4, 5]
    assert (await store.player_by_name("ann")) == PlayerInfo(ann, "Ann", False)


# -- one batch for every kind of write ----------------------------------------
async def test_players_and_entries_are_batched_with_actions(counted: Counted) -> None:
    store = counted.store
    t = await store.create_tournament(new_tournament())
    later = await store.create_tournament(new_tournament(name="Later"))
    old = [await store.create_player(f"old{i}", f"ho{i}", NOW) for i in range(4)]
    entries = [await store.create_entry(t.id, p, NOW, NOW, playing()) for p in old]
    counted.reset()

    results = await asyncio.gather(
        *(store.create_player(f"new{i}", f"hn{i}", NOW) for i in range(6)),
        *(store.create_entry(later.id, p, NOW, NOW, playing()) for p in old),
        *(act(store, t.id, e.id, 1, 1) for e in entries),
    )

    assert counted.sizes == [14]  # one batch carried all of them
    if counted.on_postgresql:
        assert counted.commits == 1  # in one transaction
    new_players, new_entries = results[:6], results[6:10]
    assert [p.name for p in new_players] == [f"new{i}" for i in range(6)]
    assert len({p.id for p in new_players} | {p.id for p in old}) == 10
    assert {e.player_id for e in new_entries} == {p.id for p in old}
    assert results[10:] == [None] * 4
    for p in new_players:
        assert await store.player_by_token_hash(f"hn{new_players.index(p)}") == p
    assert [e.id for e in await store.entries(later.id)] == [e.id for e in new_entries]
    assert store.writer.appended == 4 and store.writer.batches >= 1


async def test_refused_writes_in_a_batch_fail_alone(counted: Counted) -> None:
    store = counted.store
    t = await store.create_tournament(new_tournament())
    shut = await store.create_tournament(new_tournament(name="Shut"))
    zed = await store.create_player("Zed", "hz", NOW)
    yan = await store.create_player("Yan", "hy", NOW)
    e_zed = await store.create_entry(t.id, zed, NOW, NOW, playing())
    e_shut = await store.create_entry(shut.id, zed, NOW, NOW, playing())
    await store.append(t.id, e_zed.id, 1, 1, canonical_json({"n": 1}), playing(1))
    assert await store.close_tournament(shut.id, NOW) is not None
    counted.reset()

    results = await asyncio.gather(
        store.create_player("zed", "h-zed2", NOW),  # taken before
        store.create_player("amy", "ha", NOW),
        store.create_player("AMY", "ha2", NOW),  # taken earlier in the same batch
        store.create_player("bea", "hb", NOW),
        store.create_entry(t.id, zed, NOW, NOW, playing()),  # exists
        store.create_entry(t.id, yan, NOW, NOW, playing()),
        act(store, t.id, e_zed.id, 1, 9),  # seq taken
        act(store, t.id, e_zed.id, 2, 2),
        act(store, shut.id, e_shut.id, 1, 1),  # tournament closed
        return_exceptions=True,
    )

    assert counted.sizes == [9]
    if counted.on_postgresql:
        assert counted.commits == 1  # the refusals cost retries, never extra commits
    refused = [type(r) for r in results if isinstance(r, Exception)]
    assert refused == [NameTaken, NameTaken, EntryExists, DuplicateAction, TournamentClosed]
    zed2, amy, amy2, bea, _, e_yan, *_ = results
    assert isinstance(amy, PlayerInfo) and isinstance(bea, PlayerInfo)
    assert isinstance(amy2, NameTaken) and isinstance(zed2, NameTaken)
    assert (await store.player_by_name("AMY")) == amy
    assert (await store.entry(t.id, yan.id)) == e_yan
    assert [(a.seq, a.at_ms) for a in await store.actions(e_zed.id)] == [(1, 1), (2, 2)]
    assert await store.actions(e_shut.id) == []
    assert (await store.entry(t.id, zed.id)).seq == 2
    assert store.writer.appended == 2  # one before the batch, one in it


async def test_a_write_the_database_refuses_fails_alone(counted: Counted) -> None:
    """An action for an entry that does not exist (a foreign key) cannot be skipped by
    the batch: it fails, the writes queued with it commit."""
    store = counted.store
    t = await store.create_tournament(new_tournament())
    p = await store.create_player("fay", "hf", NOW)
    e = await store.create_entry(t.id, p, NOW, NOW, playing())
    counted.reset()
    results = await asyncio.gather(
        act(store, t.id, 999_999, 1, 1),
        act(store, t.id, e.id, 1, 1),
        store.create_player("gus", "hg", NOW),
        return_exceptions=True,
    )
    assert isinstance(results[0], Exception)
    assert results[1] is None and isinstance(results[2], PlayerInfo)
    assert [a.seq for a in await store.actions(e.id)] == [1]
    assert await store.player_by_name("gus") == results[2]


async def test_a_deleted_accounts_name_is_refused_in_its_batch(counted: Counted) -> None:
    """The writer reads the erased names in the insert's transaction: the name, in any
    case, fails alone; the new player beside it gets its device as its token reads it."""
    store = counted.store
    gone = await store.create_player("Gone", "h-gone", NOW)
    assert await stored_accounts.erase(store, gone.id, f"deleted-{gone.id}", NOW) is not None
    counted.reset()
    erased, kept = await asyncio.gather(
        store.create_account("GONE", "h-gone2", NOW),
        store.create_account("kept", "h-kept", NOW, "phone"),
        return_exceptions=True,
    )
    assert counted.sizes == [2]
    assert isinstance(erased, NameErased)
    assert isinstance(kept, tuple) and kept[1].label == "phone"
    assert await stored_devices.signed_in(store, "h-kept") == kept
    assert await store.player_by_token_hash("h-gone2") is None
    assert await stored_devices.signed_in(store, "h-gone2") is None


async def test_a_name_erased_while_its_insert_waits_is_refused(pg_url: str) -> None:
    """PostgreSQL: a deletion in flight holds the old row's name key, so the new player's
    insert waits for it; once it commits, the writer reads the erased names again (the
    insert's snapshot could not see them) and deletes the new row: NameErased."""
    await asyncio.to_thread(db.migrate, pg_url)
    store = await Store.open(pg_url, migrate=False)
    try:
        ana = await store.create_player("Ana", "h-ana", NOW)
        async with store.engine.connect() as deleting:  # erase's statements, not committed
            await deleting.execute(
                insert(ErasedName).values(name_key="ana", player_id=ana.id, at=NOW)
            )
            await deleting.execute(
                update(Player).where(Player.id == ana.id).values(name="x", name_key="x")
            )
            registering = asyncio.ensure_future(store.create_account("ANA", "h-ana2", NOW))
            await _until_a_backend_waits_on_a_lock(store)
            assert not registering.done()
            await deleting.commit()
        with pytest.raises(NameErased):
            await registering
        async with store.engine.connect() as c:
            keys = (await c.scalars(select(Player.name_key))).all()
            devices = (await c.scalars(select(Device.token_hash))).all()
        assert keys == ["x"] and devices == ["h-ana"]
    finally:
        await store.close()


async def _until_a_backend_waits_on_a_lock(store: Store) -> None:
    """Polled, each time in a transaction of its own (pg_stat_activity is read once per
    transaction)."""
    for _ in range(1000):
        async with store.engine.connect() as c:
            waiting = await c.scalar(
                text(
                    "SELECT count(*) FROM pg_stat_activity"
                    " WHERE wait_event_type = 'Lock' AND datname = current_database()"
                )
            )
        if waiting:
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the insert never waited for the deletion")


# -- what the rows hold -------------------------------------------------------
async def test_log_hash_and_statuses_round_trip(counted: Counted) -> None:
    store = counted.store
    t = await store.create_tournament(new_tournament(status=TournamentStatus.OPEN))
    assert type(t.status) is TournamentStatus and t.status is TournamentStatus.OPEN
    p = await store.create_player("hal", "hh", NOW)
    joined = await store.create_entry(t.id, p, NOW, NOW, summary(log_hash="a0" * 32))
    assert joined.log_hash == "a0" * 32
    stored = await store.entry(t.id, p.id)
    assert stored == joined and type(stored.figures.status) is Status
    assert stored.log_hash == "a0" * 32

    await store.append(
        t.id, joined.id, 1, 7, canonical_json({}), summary(Status.WON, 1, 52, "b1" * 32)
    )
    after = await store.entry(t.id, p.id)
    assert (after.figures.status, after.seq, after.figures.progress, after.log_hash) == (
        Status.WON,
        1,
        52,
        "b1" * 32,
    )
    assert type(after.figures.status) is Status
    assert [e.log_hash for e in await store.entries(t.id)] == ["b1" * 32]

    assert await store.time_out_entry(joined.id, 900) is None  # it ended: nothing changes
    assert (await store.entry(t.id, p.id)).figures.status is Status.WON
    assert await store.close_tournament(t.id, NOW) is not None
    back = await store.tournament(t.id)
    assert back is not None and type(back.status) is TournamentStatus
    assert back.status is TournamentStatus.CLOSED
    async with store.engine.connect() as conn:  # the enums are stored as their values
        row = (
            await conn.execute(
                text(
                    "SELECT e.status, t.status FROM entries e JOIN tournaments t"
                    " ON t.id = e.tournament_id"
                )
            )
        ).one()
    assert tuple(row) == ("won", "closed")
    assert await store.games_by_status() == {"won": 1}


async def test_a_row_caches_the_head_only_when_a_summary_carries_one(counted: Counted) -> None:
    """A summary's log_hash is cached with log_seq = its seq; "" (no checkpoint) keeps the
    row's head and log_seq, in the fast and the careful (after a duplicate) batch alike."""
    store = counted.store
    t = await store.create_tournament(new_tournament())
    players = [await store.create_player(n, f"h{n}", NOW) for n in ("ida", "jo", "kit")]
    ida, jo, kit = [
        await store.create_entry(t.id, p, NOW, NOW, summary(log_hash=f"{i:02x}" * 32))
        for i, p in enumerate(players)
    ]
    assert (ida.log_hash, ida.log_seq) == ("00" * 32, 0)
    assert (await store.entry(t.id, ida.player_id)) == ida

    async def row(entry_id: int) -> tuple[int, str, int]:
        got = await store.entry_by_id(entry_id)
        assert got is not None
        return got.seq, got.log_hash, got.log_seq

    def append(entry_id: int, seq: int, log_hash: str = "") -> Awaitable[None]:
        s = summary(seq=seq, log_hash=log_hash)
        return store.append(t.id, entry_id, seq, seq, canonical_json({"n": seq}), s)

    await append(ida.id, 1)
    assert await row(ida.id) == (1, "00" * 32, 0)
    counted.reset()
    await asyncio.gather(append(ida.id, 2), append(jo.id, 1, "b1" * 32), append(kit.id, 1))
    assert counted.sizes == [3]
    assert await row(ida.id) == (2, "00" * 32, 0)
    assert await row(jo.id) == (1, "b1" * 32, 1)
    assert await row(kit.id) == (1, "02" * 32, 0)

    counted.reset()  # a duplicate: the batch is written again, carefully
    results = await asyncio.gather(
        append(ida.id, 1, "ff" * 32),
        append(ida.id, 3),
        append(jo.id, 2),
        append(kit.id, 2, "c2" * 32),
        return_exceptions=True,
    )
    assert counted.sizes == [4]
    assert isinstance(results[0], DuplicateAction) and results[1:] == [None] * 3
    assert await row(ida.id) == (3, "00" * 32, 0)
    assert await row(jo.id) == (2, "b1" * 32, 1)
    assert await row(kit.id) == (2, "c2" * 32, 2)

    timed_out = await store.time_out_entry(ida.id, 900)
    assert timed_out is not None and (timed_out.seq, timed_out.log_hash) == (3, "")
    assert await row(ida.id) == (3, "00" * 32, 0)  # a timeout caches no head
