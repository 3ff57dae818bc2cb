"""Standings pushes: coalesced per tournament, each a real frame on every subscriber that
keeps up, the close pushed with its seed and log root."""

from __future__ import annotations

import asyncio
from typing import Any

import orjson

from server.domain.ranking import Standing
from server.net.fanout import Fanout

ROW = Standing(1, "alice", "playing", 3, 0, 1200, 3)


class Recording:
    """A connection with the transport's broadcast interface, keeping what it is sent."""

    def __init__(self, congested: bool = False) -> None:
        self.congested = congested
        self.frames: list[dict[str, Any]] = []

    def send_text(self, data: bytes) -> None:
        self.frames.append(orjson.loads(data))


class SlowStandings:
    """Standings whose query waits until released."""

    def __init__(self) -> None:
        self.release = asyncio.Event()
        self.queries = 0

    async def table(self, tournament_id: int) -> tuple[list[Standing], bool]:
        self.queries += 1
        await self.release.wait()
        return [ROW], False


async def test_a_change_during_a_push_schedules_exactly_one_more() -> None:
    standings = SlowStandings()
    fanout = Fanout(standings, min_interval=0.2)  # type: ignore[arg-type]
    conn = Recording()
    fanout.subscribe(1, conn)  # type: ignore[arg-type]
    fanout.standings_changed(1)
    await asyncio.sleep(0.01)  # the first push is now waiting on its query
    fanout.standings_changed(1)  # a change while it runs: the next window's push
    second = fanout._pending[1]
    standings.release.set()
    await asyncio.sleep(0.01)  # the first push ends
    fanout.standings_changed(1)  # must join the pending push, not start a third
    assert fanout._pending.get(1) is second
    await asyncio.sleep(0.3)
    assert standings.queries == 2
    assert [f["type"] for f in conn.frames] == ["standings", "standings"]
    assert conn.frames[0]["rows"] == [ROW.as_dict()] and conn.frames[0]["tournament"] == 1


async def test_a_push_reaches_every_subscriber_keeping_up_and_skips_a_congested_one() -> None:
    standings = SlowStandings()
    standings.release.set()
    fanout = Fanout(standings, min_interval=0.0)  # type: ignore[arg-type]
    fast, slow, other = Recording(), Recording(congested=True), Recording()
    fanout.subscribe(1, fast)  # type: ignore[arg-type]
    fanout.subscribe(1, slow)  # type: ignore[arg-type]
    fanout.subscribe(2, other)  # type: ignore[arg-type]
    fanout.standings_changed(1)
    await asyncio.sleep(0.05)
    assert len(fast.frames) == 1 and slow.frames == [] and other.frames == []


async def test_the_close_pushes_final_standings_then_the_seed_and_log_root() -> None:
    standings = SlowStandings()
    standings.release.set()
    fanout = Fanout(standings)  # type: ignore[arg-type]
    conn = Recording()
    fanout.subscribe(7, conn)  # type: ignore[arg-type]
    fanout.tournament_closed(7, "ab" * 32, "cd" * 32)
    await asyncio.sleep(0.05)
    assert [f["type"] for f in conn.frames] == ["standings", "closed"]
    assert conn.frames[1] == {
        "type": "closed",
        "tournament": 7,
        "seed": "ab" * 32,
        "log_root": "cd" * 32,
    }


async def test_unsubscribed_and_dropped_connections_get_nothing() -> None:
    standings = SlowStandings()
    standings.release.set()
    fanout = Fanout(standings, min_interval=0.0)  # type: ignore[arg-type]
    left, dropped = Recording(), Recording()
    fanout.subscribe(1, left)  # type: ignore[arg-type]
    fanout.subscribe(1, dropped)  # type: ignore[arg-type]
    fanout.unsubscribe(1, left)  # type: ignore[arg-type]
    fanout.drop(dropped)  # type: ignore[arg-type]
    fanout.standings_changed(1)
    await asyncio.sleep(0.05)
    assert left.frames == [] and dropped.frames == []
