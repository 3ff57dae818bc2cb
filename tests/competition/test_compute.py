"""CPU-heavy work off the event loop's process: jobs run in worker processes, and a
tournament whose deal is searched is prepared there (one that searches nothing, at once)."""

from __future__ import annotations

import os
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from server.competition import compute
from server.competition.catalogue import Catalogue
from server.store.repository import Store
from tests.competition.conftest import gaps_spec
from tests.support.harness import Clock


async def test_a_job_runs_in_another_process() -> None:
    pool = compute.Compute(workers=1)
    try:
        assert await pool.run(os.getpid) != os.getpid()
        deal = await pool.run(compute.prepare_deal, "klondike", b"\x07" * 32, {"draw": 1})
        assert deal.deal_attempt == 0 and not deal.guaranteed  # plain values both ways
    finally:
        pool.close()


class Recording(ThreadPoolExecutor):
    """Runs jobs at once in a thread, keeping which were submitted."""

    def __init__(self) -> None:
        super().__init__(1)
        self.jobs: list[tuple[Any, ...]] = []

    def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Future[Any]:
        self.jobs.append((fn, *args))
        return super().submit(fn, *args, **kwargs)


async def test_a_searched_deal_is_prepared_in_the_pool(store: Store, clock: Clock) -> None:
    executor = Recording()
    catalogue = Catalogue(store, clock, compute.Compute(executor))
    await catalogue.create(gaps_spec())  # Gaps searches nothing: prepared at once
    assert executor.jobs == []
    spec = gaps_spec(game="klondike", options={"draw": 1, "guaranteed": True})
    t = await catalogue.create(spec)
    assert [job[:2] for job in executor.jobs] == [(compute.prepare_deal, "klondike")]
    assert t.guaranteed and t.solution
    executor.shutdown()
