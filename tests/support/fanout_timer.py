"""The fan-out's time in tests (server/net/fanout.Timer): moved by the test, not the clock."""

from __future__ import annotations

import asyncio


class ManualTimer:
    """The fan-out's time, moved by the test: `sleep` returns once `advance` passes its
    end (no real time passes)."""

    def __init__(self) -> None:
        self.t = 0.0
        self.sleepers: list[tuple[float, asyncio.Future[None]]] = []

    def now(self) -> float:
        return self.t

    async def sleep(self, seconds: float) -> None:
        done = asyncio.get_running_loop().create_future()
        self.sleepers.append((self.t + seconds, done))
        await done

    def advance(self, seconds: float) -> None:
        self.t += seconds
        for end, done in self.sleepers:
            if end <= self.t and not done.done():
                done.set_result(None)
        self.sleepers = [(e, d) for e, d in self.sleepers if not d.done()]
