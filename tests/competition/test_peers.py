"""What a node learns from the others sharing its database (server/competition/peers.py):
each notice becomes a change of its tournament here (an entry's figures, a new entry, a
tournament created or closed, a player renamed), revoked devices are signed out, and a
resync reads everything again."""

from __future__ import annotations

from typing import Any

from server.competition.service import Competition
from server.domain.model import (
    DevicesNotice,
    EntryNotice,
    JoinNotice,
    PlayerInfo,
    RenamedNotice,
    TournamentNotice,
    TournamentStatus,
)
from server.store.repository import Store
from tests.competition.conftest import Recorder, gaps_spec
from tests.support.harness import Clock


async def node_b(store: Store, clock: Clock) -> tuple[Competition, Recorder]:
    """Another node on the same database, holding its tournaments in memory."""
    heard = Recorder()
    other = Competition.build(store, heard, clock)
    await other.lifecycle.refresh()
    return other, heard


async def players_on(node: Competition, tid: int) -> list[tuple[str, int]]:
    view = await node.standings.window(tid)
    return [(r.player, r.progress) for r in view.rows]


def first_move(view: dict[str, Any]) -> dict[str, Any]:
    return {"kind": "move", **view["legal"][0]}


async def test_an_entry_made_elsewhere_joins_the_table_here(
    competition: Competition, store: Store, alice: PlayerInfo, clock: Clock
) -> None:
    t = await competition.catalogue.create(gaps_spec())
    other, heard = await node_b(store, clock)
    assert await players_on(other, t.id) == []
    await competition.play.join(alice, t.id)
    entry = await store.entry(t.id, alice.id)
    assert entry is not None
    assert await players_on(other, t.id) == []  # not told yet
    await other.peers.notice(JoinNotice(t.id, entry.id))
    assert [name for name, _ in await players_on(other, t.id)] == ["alice"]
    assert ("standings", t.id) in heard.heard
    await other.peers.notice(JoinNotice(t.id, entry.id))  # known already: nothing new
    assert len(await players_on(other, t.id)) == 1


async def test_an_entrys_new_figures_from_elsewhere_are_taken(
    competition: Competition, store: Store, alice: PlayerInfo, clock: Clock
) -> None:
    t = await competition.catalogue.create(gaps_spec())
    snap = await competition.play.join(alice, t.id)
    other, heard = await node_b(store, clock)
    before = await players_on(other, t.id)
    progress = before[0][1]
    moved = await competition.play.act(alice, t.id, 1, first_move(snap.view))
    entry = await store.entry(t.id, alice.id)
    assert entry is not None and entry.seq == 1
    heard.heard.clear()
    await other.standings.window(t.id)
    assert heard.heard == []  # not told yet
    await other.peers.notice(EntryNotice(t.id, entry.id, 1, entry.figures))
    assert ("standings", t.id) in heard.heard
    assert await players_on(other, t.id) == [("alice", entry.figures.progress)]
    assert moved.seq == 1 and entry.figures.progress >= progress


async def test_a_close_made_elsewhere_is_learnt_and_announced(
    competition: Competition, store: Store, alice: PlayerInfo, clock: Clock
) -> None:
    t = await competition.catalogue.create(gaps_spec())
    other, heard = await node_b(store, clock)
    await competition.lifecycle.close(t.id)
    assert other.catalogue.get(t.id).status == TournamentStatus.OPEN  # not told yet
    await other.peers.notice(TournamentNotice(t.id))
    assert other.catalogue.get(t.id).status == TournamentStatus.CLOSED
    assert heard.heard[-1][:2] == ("closed", t.id)


async def test_a_player_renamed_elsewhere_is_read_again_and_the_bundle_rebuilt(
    competition: Competition, store: Store, clock: Clock
) -> None:
    t = await competition.catalogue.create(gaps_spec())
    ana, _, _ = await competition.devices.register("Ana", None)
    await competition.play.join(ana, t.id)
    other, _ = await node_b(store, clock)
    amended: list[int] = []
    other.catalogue.tournaments.on_amended(amended.append)
    assert [name for name, _ in await players_on(other, t.id)] == ["Ana"]
    competition.accounts.renamed = lambda tid: None  # node A's own rereads are not tested
    await competition.accounts.delete(ana, "Ana")
    assert [name for name, _ in await players_on(other, t.id)] == ["Ana"]  # not told yet
    await other.peers.notice(RenamedNotice(t.id))
    assert amended == [t.id]
    assert [name for name, _ in await players_on(other, t.id)] == [f"deleted-{ana.id}"]


async def test_devices_revoked_elsewhere_are_signed_out_here(
    competition: Competition, store: Store, clock: Clock
) -> None:
    _ana, device, _ = await competition.devices.register("Ana", None)
    other, _ = await node_b(store, clock)
    told: list[str] = []
    other.devices.attach(device.id, "conn", lambda: told.append("out"))
    await other.peers.notice(DevicesNotice((device.id,)))
    assert told == ["out"]


async def test_a_resync_reads_tournaments_tables_and_devices_again(
    competition: Competition, store: Store, alice: PlayerInfo, clock: Clock
) -> None:
    t = await competition.catalogue.create(gaps_spec())
    other, _ = await node_b(store, clock)
    ana, device, _ = await competition.devices.register("Ana", None)
    told: list[str] = []
    other.devices.attach(device.id, "conn", lambda: told.append("out"))
    assert await players_on(other, t.id) == []
    await competition.play.join(alice, t.id)  # no notice reaches B
    await competition.devices.revoke(ana, device.id)
    later = await competition.catalogue.create(gaps_spec(name="Later"))
    assert await players_on(other, t.id) == [] and told == []  # not told yet
    await other.peers.resync()
    assert other.peers.resyncs == 1
    assert told == ["out"]
    assert [name for name, _ in await players_on(other, t.id)] == ["alice"]
    assert other.catalogue.tournaments.get(later.id) is not None
