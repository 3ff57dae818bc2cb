"""Accounts under races (v1.4, PROTOCOL.md "Accounts"), on SQLite and PostgreSQL: each
test puts the other party's step exactly inside the window it races for, so that the
interleaving is certain rather than hoped for.

- a move stored between the deletion's reading of the game and its resign;
- two approvals of one link code, neither holding a row lock: exactly one wins;
- a registration of a name whose account is being deleted;
- signing in with a device while it is being revoked (here, or on another node).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from server.competition.errors import CompetitionError
from server.competition.live_game import Snapshot
from server.competition.service import Competition
from server.domain.accounts import DeviceInfo
from server.domain.model import PlayerInfo, TournamentInfo
from server.games.base import Status
from server.store import accounts as stored_accounts
from server.store import devices as stored_devices
from server.store.models import Device, ErasedName, LinkCode, Player
from server.store.repository import Store
from tests.competition.conftest import Recorder, gaps_spec
from tests.support.harness import Clock


def first_move(snap: Snapshot) -> dict[str, Any]:
    return {"kind": "move", **snap.view["legal"][0]}


async def _player(comp: Competition, name: str) -> tuple[PlayerInfo, DeviceInfo, str]:
    return await comp.devices.register(name, "phone")


# -- 1. the deletion's resign and a move in flight -------------------------------------
async def test_a_move_stored_before_the_resign_is_resigned_after(
    comp: Competition, clock: Clock
) -> None:
    """The deletion reads the game at seq 0; a move (sent before the deletion, from a
    device on another node, say) is stored at seq 1 before the resign is: the resign
    is out_of_sync, read again and sent at seq 2. Before the fix the entry stayed
    `playing` after its account was gone."""
    t: TournamentInfo = await comp.catalogue.create(gaps_spec())
    ana, _, _ = await _player(comp, "Ana")
    snap = await comp.play.join(ana, t.id)
    clock.advance(1)
    real_state = comp.play.state
    raced = []

    async def state_then_a_move(player: PlayerInfo, tid: int) -> Snapshot:
        seen = await real_state(player, tid)
        if not raced:  # the move lands between the deletion's read and its resign
            raced.append(await comp.play.act(ana, tid, seen.seq + 1, first_move(snap)))
        return seen

    comp.play.state = state_then_a_move  # type: ignore[method-assign]
    await comp.accounts.delete(ana, "Ana")
    comp.play.state = real_state  # type: ignore[method-assign]
    assert raced and raced[0].seq == 1
    entry = await comp.store.entry(t.id, ana.id)
    assert entry is not None and entry.seq == 2
    assert entry.figures.status == Status.RESIGNED.value


# -- 2. two approvals of one code -----------------------------------------------------
@pytest.fixture
async def in_step(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[None]:
    """The first two sessions to write wait for each other: both have read the link as
    waiting before either writes (no row lock is taken; the conditional update decides)."""
    barrier = asyncio.Barrier(2)
    real_flush = AsyncSession.flush
    waiting = [2]

    async def flush(self: AsyncSession, *args: Any, **kw: Any) -> None:
        if waiting[0] > 0:
            waiting[0] -= 1
            await asyncio.wait_for(barrier.wait(), 30)
        await real_flush(self, *args, **kw)

    monkeypatch.setattr(AsyncSession, "flush", flush)
    yield


async def test_two_approvals_of_one_code_one_wins(comp: Competition, in_step: None) -> None:
    uma, _, _ = await _player(comp, "uma")
    vic, _, _ = await _player(comp, "vic")
    link = await comp.links.start("tablet")
    got = await asyncio.gather(
        comp.links.approve(uma, link.code, "10.0.0.1"),
        comp.links.approve(vic, link.code, "10.0.0.2"),
        return_exceptions=True,
    )
    won = [g for g in got if isinstance(g, DeviceInfo)]
    lost = [g for g in got if isinstance(g, CompetitionError)]
    assert len(won) == 1 and len(lost) == 1, got
    assert lost[0].code == "not_found"
    winner = uma if won[0].player_id == uma.id else vic
    loser = vic if winner is uma else uma
    async with comp.store._session() as s:
        links = (await s.scalars(select(LinkCode))).all()
        linked = await s.scalar(
            select(func.count()).select_from(Device).where(Device.kind == "link")
        )
    assert [x.device_id for x in links] == [won[0].id] and linked == 1  # the loser's rolled back
    assert [d.kind.value for d in await comp.devices.listed(loser)] == ["token"]
    player, device, _ = await comp.links.poll(link.poll)
    assert (player.id, device.id) == (winner.id, won[0].id)


# -- 3. registering a name while its account is deleted --------------------------------
async def test_a_name_registered_while_its_account_is_deleted_is_taken(
    comp: Competition, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The deletion commits after the registration has passed its own checks and before
    its insert is written: the writer reads the erased names in the insert's transaction,
    so it is still `name_taken`, and nothing of it is stored. (A deletion still in flight
    when the insert runs: tests/store/test_writer.py, on PostgreSQL.)"""
    ana, _, _ = await _player(comp, "Ana")
    writer = comp.store.writer
    real = writer.new_player

    async def deleted_then_inserted(*args: Any) -> Any:
        await comp.accounts.delete(ana, "Ana")
        return await real(*args)

    monkeypatch.setattr(writer, "new_player", deleted_then_inserted)
    with pytest.raises(CompetitionError) as refused:
        await comp.devices.register("ana", None)
    assert refused.value.code == "name_taken"
    assert refused.value.params == {"name": "ana"}
    monkeypatch.undo()
    async with comp.store._session() as s:
        names = sorted((await s.scalars(select(Player.name))).all())
        orphans = await s.scalar(
            select(func.count())
            .select_from(Device)
            .where(Device.player_id.not_in(select(Player.id)))
        )
    assert names == [f"deleted-{ana.id}"] and orphans == 0
    with pytest.raises(CompetitionError, match="taken"):
        await comp.devices.register("ANA", None)


# -- 4. signing in with a device being revoked -----------------------------------------
class Conn:
    """A connection as Devices sees it: a key and its sign-out."""

    def __init__(self) -> None:
        self.signed_out = 0

    def sign_out(self) -> None:
        self.signed_out += 1


@pytest.fixture
async def node_b(any_store: Store, clock: Clock) -> AsyncIterator[Competition]:
    """A second node on the same database (its own store and competition)."""
    store = await Store.open(any_store.url, migrate=False)
    try:
        yield Competition.build(store, Recorder(), clock)
    finally:
        await store.close()


def _between(
    monkeypatch: pytest.MonkeyPatch, target: Any, name: str, step: Callable[[], Awaitable[None]]
) -> None:
    """Run `step` right after the first call of `target.name` (its result kept)."""
    real = getattr(target, name)
    done: list[bool] = []

    async def wrapped(*args: Any) -> Any:
        result = await real(*args)
        if not done:
            done.append(True)
            await step()
        return result

    monkeypatch.setattr(target, name, wrapped)


async def test_a_device_revoked_on_another_node_while_its_token_is_read_does_not_sign_in(
    comp: Competition, node_b: Competition, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Node B has found the token's device in force; node A revokes it before B signs
    the connection in: B refuses, and the device authenticates nowhere afterwards."""
    eve, device, token = await _player(comp, "eve")

    async def revoke_on_a() -> None:
        await comp.devices.revoke(eve, device.id)

    _between(monkeypatch, stored_devices, "signed_in", revoke_on_a)
    _, found = await node_b.devices.authenticate(token)  # read while in force
    conn = Conn()
    assert not await node_b.devices.hold(found, conn, conn.sign_out)
    monkeypatch.undo()
    for node in (comp, node_b):
        with pytest.raises(CompetitionError, match="unknown token"):
            await node.devices.authenticate(token)
    node_b.devices.signed_out([device.id])  # A's notice arriving late finds nobody
    assert conn.signed_out == 0


async def test_a_device_revoked_while_its_sign_in_is_in_flight_is_signed_out(
    comp: Competition, node_b: Competition, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The sign-in's update commits first, the revocation right after: the connection,
    attached before that update, is signed out by the revocation (here at once; on
    another node by the notice, which peers.py turns into the same call)."""
    eve, device, token = await _player(comp, "eve")
    _, found = await comp.devices.authenticate(token)
    here = Conn()

    async def revoke_here() -> None:
        await comp.devices.revoke(eve, device.id)

    _between(monkeypatch, stored_devices, "seen", revoke_here)
    assert not await comp.devices.hold(found, here, here.sign_out)  # refused after all
    assert here.signed_out == 1
    monkeypatch.undo()

    fay, other, token2 = await _player(comp, "fay")
    _, found = await node_b.devices.authenticate(token2)
    there = Conn()
    assert await node_b.devices.hold(found, there, there.sign_out)  # signed in on B
    await comp.devices.revoke(fay, other.id)  # on A, after B's update
    node_b.devices.signed_out([other.id])  # the notice (peers.py) reaching B
    assert there.signed_out == 1
    assert not await node_b.devices.hold(found, Conn(), Conn().sign_out)


# -- 5. two deletions of one account at once --------------------------------------------
async def test_two_deletions_at_once_the_second_is_unauthorized(
    comp: Competition, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two connections of one player send `delete_account` at once: both have read the
    player before either writes. One deletes; the other is `unauthorized` (the account is
    gone), not `internal`, and changes nothing: one erased name, one erasure."""
    t: TournamentInfo = await comp.catalogue.create(gaps_spec())
    ana, _, _ = await _player(comp, "Ana")
    await comp.play.join(ana, t.id)
    barrier = asyncio.Barrier(2)  # both deletions have read the player before either writes
    real_erase = stored_accounts.erase

    async def erase_in_step(store: Store, *args: Any) -> Any:
        await asyncio.wait_for(barrier.wait(), 30)
        return await real_erase(store, *args)

    monkeypatch.setattr(stored_accounts, "erase", erase_in_step)
    got = await asyncio.gather(
        comp.accounts.delete(ana, "Ana"),
        comp.accounts.delete(ana, "Ana"),
        return_exceptions=True,
    )
    monkeypatch.setattr(stored_accounts, "erase", real_erase)
    lost = [g for g in got if isinstance(g, BaseException)]
    assert got.count(None) == 1 and len(lost) == 1, got
    assert isinstance(lost[0], CompetitionError) and lost[0].code == "unauthorized", lost
    async with comp.store._session() as s:
        names = (await s.scalars(select(ErasedName))).all()
        player = await s.get(Player, ana.id)
    assert [(n.name_key, n.player_id) for n in names] == [("ana", ana.id)]
    assert player is not None and player.name == f"deleted-{ana.id}"
    entry = await comp.store.entry(t.id, ana.id)
    assert entry is not None and entry.figures.status == Status.RESIGNED.value
    # later, too: the same answer, nothing changed
    with pytest.raises(CompetitionError) as e:
        await comp.accounts.delete(ana, "Ana")
    assert e.value.code == "unauthorized"
