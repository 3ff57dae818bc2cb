"""Bundles of closed tournaments (competition/bundles.py): built in a worker process of
their own, niced, from the database itself; the bytes are the export's."""

from __future__ import annotations

import asyncio
import gzip
import os
from collections.abc import Callable
from typing import Any, TypeVar

import orjson

from server.audit.verify import verify_document
from server.competition import bundles
from server.competition.bundles import NICE, WORKER, Built, BundleCache
from server.competition.compute import Compute
from server.competition.service import Competition
from tests.competition.test_ratings import play_and_close, players
from tests.support.harness import Clock

R = TypeVar("R")


class Spy(Compute):
    """The build worker, noting every job it is given."""

    def __init__(self) -> None:
        super().__init__()
        self.jobs: list[Callable[..., Any]] = []

    async def run(self, job: Callable[..., R], *args: Any) -> R:
        self.jobs.append(job)
        return await WORKER.run(job, *args)


async def test_the_build_worker_is_another_process_at_a_lower_priority() -> None:
    assert await WORKER.run(os.getpid) != os.getpid()
    lowest = 19  # a process cannot be niced past 19 (a suite run niced 10 or more)
    assert await WORKER.run(os.nice, 0) == min(os.nice(0) + NICE, lowest)


async def test_a_cache_builds_in_the_worker_and_its_bytes_are_the_exports(
    comp: Competition, clock: Clock
) -> None:
    field = await players(comp, ["alice", "bob", "carol"])
    t = await play_and_close(comp, clock, field, [7, 4, 2], hours=1)
    spy = Spy()
    cache = BundleCache(comp.store, comp.catalogue, compute=spy)
    assert BundleCache(comp.store, comp.catalogue).compute is WORKER  # the default
    first, second = await asyncio.gather(cache.get(t.id), cache.get(t.id))
    assert spy.jobs == [bundles.build] and cache.builds == 1 and first is second
    assert first.plain == orjson.dumps(await comp.exports.bundle(t.id))
    assert gzip.decompress(first.gzip) == first.plain
    assert verify_document(orjson.loads(first.plain)).ok


async def test_the_job_reads_the_database_at_the_url_it_is_given(
    comp: Competition, clock: Clock
) -> None:
    """What the worker runs, run here (in a thread: it has its own event loop)."""
    field = await players(comp, ["dora", "emil"])
    t = await play_and_close(comp, clock, field, [3, 5], hours=2)
    seed = await comp.catalogue.revealed(t)
    built = await asyncio.to_thread(bundles.build, comp.store.url, t, seed)
    assert isinstance(built, Built)
    assert built.plain == orjson.dumps(await comp.exports.bundle(t.id))
