"""Time the test drives for the lifecycle's clock task (server/competition/ticker.py).

`DrivenScheduler` is a `Scheduler` over the harness's `Clock`: the clock task's wait
ends only when `advance` moves that clock past it, and `advance` returns once every tick
due on the way has run and the task waits again. No real time passes, so a test of
opening, closing, timeouts or schedules' occurrences asserts the same on a busy machine."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta

from tests.support.harness import Clock

SETTLE_S = 30.0  # generous: how long a tick may take on a loaded machine


class DrivenScheduler:
    """The clock task's waits, ended by `advance`."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self.ticks = 0  # waits ended: ticks the clock task was let through
        self._wake_at: datetime | None = None  # the end of the current wait
        self._waiter: asyncio.Future[None] | None = None
        self._waiting = asyncio.Event()  # the clock task waits (its tick is done)

    async def sleep(self, seconds: float) -> None:
        self._wake_at = self.clock.t + timedelta(seconds=seconds)
        self._waiter = asyncio.get_running_loop().create_future()
        self._waiting.set()
        await self._waiter

    async def settled(self) -> None:
        """Wait until the clock task has finished its tick and waits again."""
        await asyncio.wait_for(self._waiting.wait(), SETTLE_S)

    async def advance(self, seconds: float) -> None:
        """Move the clock `seconds` ahead, each wait ending at its own time (the clock
        set to it, or left where the test already put it), then its tick run."""
        end = self.clock.t + timedelta(seconds=seconds)
        while True:
            await self.settled()
            assert self._wake_at is not None and self._waiter is not None
            if self._wake_at > end:
                self.clock.t = max(self.clock.t, end)
                return
            self.clock.t = max(self.clock.t, self._wake_at)
            self._waiting.clear()
            self.ticks += 1
            self._waiter.set_result(None)
