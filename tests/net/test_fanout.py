"""Standings pushes are coalesced: one push per window, whatever the timing of changes."""

from __future__ import annotations

import asyncio
from typing import Any

from server.net.fanout import Fanout


class _SlowStandings:
    """A competition whose standings query waits until released."""

    def __init__(self) -> None:
        self.release = asyncio.Event()
        self.queries = 0
        self.on_standings_changed: Any = None
        self.on_closed: Any = None

    async def standings(self, tournament_id: int) -> tuple[list[Any], bool]:
        self.queries += 1
        await self.release.wait()
        return [], False


async def test_a_change_during_a_push_schedules_exactly_one_more() -> None:
    competition = _SlowStandings()
    fanout = Fanout(competition, min_interval=0.2)  # type: ignore[arg-type]
    fanout.subscribe(1, object())  # type: ignore[arg-type]
    fanout.changed(1)
    await asyncio.sleep(0.01)  # the first push is now waiting on its query
    fanout.changed(1)  # a change while it runs: the next window's push
    second = fanout._pending[1]
    competition.release.set()
    await asyncio.sleep(0.01)  # the first push ends
    fanout.changed(1)  # must join the pending push, not start a third
    assert fanout._pending.get(1) is second
    await asyncio.sleep(0.3)
    assert competition.queries == 2
