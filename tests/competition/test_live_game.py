"""Games in memory and their rebuilding, on SQLite and PostgreSQL: the entry's row caches
the chain head only at checkpoints (live_game.CHECKPOINT: the join, every CHECKPOINT-th action,
the end of the game), a rebuild hashes only the actions after the last one, and the
receipts' root at the close is exact whatever the rows cache."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import text

from server.audit import receipts
from server.audit.verify import verify_document
from server.competition.live_game import CHECKPOINT, Snapshot
from server.competition.service import Competition
from server.domain.model import EntryInfo, PlayerInfo, TournamentInfo
from server.store.repository import Store
from tests.competition.conftest import Recorder, gaps_spec
from tests.support.harness import Clock

DRAW = {"kind": "draw"}  # always legal in draw-1 Klondike with unlimited passes


@pytest.fixture
def store(any_store: Store) -> Store:
    """Every test here on each database: conftest's `competition` is built on this."""
    return any_store


@pytest.fixture
async def klondike(competition: Competition) -> TournamentInfo:
    spec = gaps_spec(game="klondike", options={"draw": 1}, time_limit_s=None)
    return await competition.catalogue.create(spec)


@pytest.fixture
def steps(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Every receipts.step call (its seq), as the server makes them."""
    calls: list[int] = []
    step = receipts.step

    def counted(head: bytes, seq: int, at_ms: int, action_json: str) -> bytes:
        calls.append(seq)
        return step(head, seq, at_ms, action_json)

    monkeypatch.setattr(receipts, "step", counted)
    return calls


async def draws(
    competition: Competition, player: PlayerInfo, t: TournamentInfo, clock: Clock, upto: int
) -> Snapshot:
    """Draw until the game's seq is `upto`; the last acknowledgement."""
    snap = await competition.play.state(player, t.id)
    for seq in range(snap.seq + 1, upto + 1):
        clock.advance(0.01)
        snap = await competition.play.act(player, t.id, seq, DRAW)
    return snap


async def entry(store: Store, t: TournamentInfo, player: PlayerInfo) -> EntryInfo:
    found = await store.entry(t.id, player.id)
    assert found is not None
    return found


async def head_from_scratch(store: Store, t: TournamentInfo, e: EntryInfo, seq: int) -> str:
    """The head after `seq` actions, hashed from the chain's start over the stored log."""
    logged: list[Any] = (await store.actions(e.id))[:seq]
    assert len(logged) == seq
    return receipts.log_hash(
        t.commitment, e.player_id, ((a.seq, a.at_ms, a.action) for a in logged)
    )


async def test_a_long_game_is_rebuilt_hashing_only_the_actions_after_the_last_checkpoint(
    competition: Competition,
    klondike: TournamentInfo,
    alice: PlayerInfo,
    clock: Clock,
    steps: list[int],
) -> None:
    store, t, n = competition.store, klondike, 2 * CHECKPOINT + 5
    await competition.play.join(alice, t.id)
    e = await entry(store, t, alice)
    assert (e.log_seq, e.log_hash) == (0, receipts.genesis(t.commitment, alice.id).hex())
    await draws(competition, alice, t, clock, CHECKPOINT - 1)
    assert (await entry(store, t, alice)).log_seq == 0  # no checkpoint yet: kept
    acked = await draws(competition, alice, t, clock, CHECKPOINT)
    e = await entry(store, t, alice)
    assert (e.seq, e.log_seq, e.log_hash) == (CHECKPOINT, CHECKPOINT, acked.log_hash)
    acked = await draws(competition, alice, t, clock, n)
    assert acked.seq == n and acked.status == "playing"

    e = await entry(store, t, alice)
    assert (e.seq, e.log_seq) == (n, 2 * CHECKPOINT)
    assert e.log_hash == await head_from_scratch(store, t, e, 2 * CHECKPOINT)
    exact = await head_from_scratch(store, t, e, n)
    assert acked.log_hash == exact  # every acknowledgement carries the exact head

    steps.clear()
    fresh = Competition.build(store, now=clock)  # a restarted server
    rebuilt = await fresh.play.state(alice, t.id)
    assert (rebuilt.seq, rebuilt.log_hash, rebuilt.view) == (n, exact, acked.view)
    assert steps == list(range(2 * CHECKPOINT + 1, n + 1))  # the tail only
    again = await fresh.play.act(alice, t.id, n, DRAW)  # a resend: the duplicate answer
    assert again.duplicate and again.log_hash == exact
    on = await draws(fresh, alice, t, clock, 3 * CHECKPOINT)  # the chain goes on from there
    e = await entry(store, t, alice)
    assert (e.log_seq, e.log_hash) == (3 * CHECKPOINT, on.log_hash)
    assert on.log_hash == await head_from_scratch(store, t, e, 3 * CHECKPOINT)


async def test_a_game_ending_between_checkpoints_caches_its_final_head(
    competition: Competition,
    klondike: TournamentInfo,
    alice: PlayerInfo,
    clock: Clock,
    steps: list[int],
) -> None:
    store, t = competition.store, klondike
    await competition.play.join(alice, t.id)
    await draws(competition, alice, t, clock, CHECKPOINT + 2)
    assert (await entry(store, t, alice)).log_seq == CHECKPOINT
    clock.advance(1)
    ended = await competition.play.act(alice, t.id, CHECKPOINT + 3, {"kind": "resign"})
    assert ended.status == "resigned"
    e = await entry(store, t, alice)
    assert (e.seq, e.log_seq, e.log_hash) == (CHECKPOINT + 3, CHECKPOINT + 3, ended.log_hash)
    assert e.log_hash == await head_from_scratch(store, t, e, CHECKPOINT + 3)

    steps.clear()
    rebuilt = await Competition.build(store, now=clock).play.state(alice, t.id)
    assert (rebuilt.status, rebuilt.log_hash) == ("resigned", ended.log_hash)
    assert steps == []  # nothing to hash again


async def test_the_log_root_at_the_close_is_the_root_from_scratch(
    competition: Competition,
    klondike: TournamentInfo,
    clock: Clock,
    events: Recorder,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Entries between checkpoints (timed out by the close), at one, ended between two,
    never played, and a row without a head (written before receipts)."""
    store, t = competition.store, klondike
    seqs = {"ann": 2 * CHECKPOINT + 5, "bob": 7, "cat": CHECKPOINT, "dan": 0, "eve": 3}
    players = {name: (await competition.players.register(name))[0] for name in seqs}
    for name, seq in seqs.items():
        await competition.play.join(players[name], t.id)
        await draws(competition, players[name], t, clock, seq)
    await competition.play.act(players["bob"], t.id, 8, {"kind": "resign"})
    eve = await entry(store, t, players["eve"])
    async with store.engine.begin() as conn:
        await conn.execute(
            text("UPDATE entries SET log_hash = '', log_seq = 0 WHERE id = :e"), {"e": eve.id}
        )
    rows = {e.player_name: (e.seq, e.log_seq) for e in await store.entries(t.id)}
    assert rows == {
        "ann": (2 * CHECKPOINT + 5, 2 * CHECKPOINT),
        "bob": (8, 8),
        "cat": (CHECKPOINT, CHECKPOINT),
        "dan": (0, 0),
        "eve": (3, 0),
    }

    per_entry: list[int] = []
    actions = store.actions

    async def counted(entry_id: int) -> Any:
        per_entry.append(entry_id)
        return await actions(entry_id)

    monkeypatch.setattr(store, "actions", counted)
    clock.advance(10)
    await competition.lifecycle.close(t.id)
    closed, tid, _seed, root = events.heard[-1]
    assert (closed, tid) == ("closed", t.id)
    assert per_entry == []  # the tails came in one query, not one per entry

    scratch = receipts.log_root(
        [
            (e.player_id, await head_from_scratch(store, t, e, e.seq))
            for e in await store.entries(t.id)
        ]
    )
    assert root == scratch
    bundle = await competition.exports.bundle(t.id)  # its root made from the records
    assert bundle["log_root"] == root and verify_document(bundle).ok
