"""Bodies of public HTTP reads kept for a short time: many viewers asking for one page
of standings, a leaderboard or a player within a second get one computation.

A body may be up to `ttl_s` old (the routes say so with `Cache-Control: max-age`). At
most `max_entries` bodies are kept; past that the cache starts again empty (a crawler
walking every page must not grow it without bound). A failed computation is not kept.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Hashable

Body = tuple[str, str]  # (content type, body)


class ResponseCache:
    """Bodies by key, each for `ttl_s` seconds of `clock`."""

    def __init__(
        self,
        ttl_s: float = 1.0,
        max_entries: int = 10_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.ttl_s = ttl_s
        self.max_entries = max_entries
        self.clock = clock
        self._bodies: dict[Hashable, tuple[float, Body]] = {}

    async def get(self, key: Hashable, make: Callable[[], Awaitable[Body]]) -> Body:
        """The body kept under `key`, or `make()`'s, kept for `ttl_s`; what `make`
        raises passes through and nothing is kept."""
        now = self.clock()
        kept = self._bodies.get(key)
        if kept is not None and kept[0] > now:
            return kept[1]
        body = await make()
        if len(self._bodies) >= self.max_entries:
            self._bodies.clear()
        self._bodies[key] = (now + self.ttl_s, body)
        return body

    def __len__(self) -> int:
        return len(self._bodies)
