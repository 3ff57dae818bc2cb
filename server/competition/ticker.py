"""The lifecycle's clock task: `Lifecycle.tick` every TICK_S seconds, as a `Scheduler`
counts them.

A server waits on the event loop (`LoopScheduler`). A test passes a scheduler it moves
itself, together with the `now` it gives the competition, so that opening, closing,
timing out and schedules' occurrences happen when the test says their time has come, not
when the machine gets round to it (tests/support/driven.py)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import NoReturn, Protocol

from server.ops import faults

log = logging.getLogger("samedeal.lifecycle")
TICK_S = 0.5  # from the end of one tick to the start of the next


class Scheduler(Protocol):
    """How the clock task waits between two ticks."""

    async def sleep(self, seconds: float) -> None: ...


class LoopScheduler:
    """The event loop's time (`asyncio.sleep`): a server's."""

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


async def run_ticks(
    tick: Callable[[], Awaitable[None]], scheduler: Scheduler, period: float = TICK_S
) -> NoReturn:
    """Tick, wait `period`, forever (until cancelled). A tick that fails is logged and
    the next one comes as usual: the clock never stops for one bad tournament."""
    while True:
        try:
            await tick()
        except Exception as exc:
            if not faults.report(exc, "lifecycle tick"):
                log.exception("lifecycle tick failed")
        await scheduler.sleep(period)
