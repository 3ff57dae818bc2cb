"""ResponseCache: one computation per key and second, failures not kept, bounded."""

from __future__ import annotations

import pytest

from server.competition.errors import CompetitionError
from server.net.response_cache import ResponseCache


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


async def test_a_body_is_made_once_per_ttl() -> None:
    clock, made = Clock(), []

    async def make() -> tuple[str, str]:
        made.append(clock.now)
        return "text/plain", f"body {len(made)}"

    cache = ResponseCache(ttl_s=1.0, clock=clock)
    assert await cache.get("k", make) == ("text/plain", "body 1")
    clock.now += 0.999
    assert await cache.get("k", make) == ("text/plain", "body 1")
    clock.now += 0.001
    assert await cache.get("k", make) == ("text/plain", "body 2")
    assert made == [100.0, 101.0]


async def test_a_failure_is_not_kept() -> None:
    calls = 0

    async def failing() -> tuple[str, str]:
        nonlocal calls
        calls += 1
        raise CompetitionError("not_found", "no such tournament")

    cache = ResponseCache(clock=Clock())
    for _ in range(2):
        with pytest.raises(CompetitionError):
            await cache.get("k", failing)
    assert calls == 2 and len(cache) == 0


async def test_keys_are_bounded() -> None:
    cache = ResponseCache(max_entries=3, clock=Clock())

    async def make() -> tuple[str, str]:
        return "t", "b"

    for key in range(10):
        await cache.get(key, make)
        assert len(cache) <= 3
