"""CPU-heavy work off the event loop's process: a small pool of worker processes.

A search (Klondike's guaranteed deals today; a Gaps `winnable` search or a par search
later) would hold the interpreter lock for seconds in a thread, and every player's reply
would wait on it. `Compute.run(job, *args)` runs a job in a worker process and awaits
its result without blocking the loop. A job is a module-level function of pure code
(its arguments and result pickled): the jobs below import only `server.games`, so a
worker starts light.

The pool is started on the first job and its workers ("spawn": no copy of the server's
loop, threads or sockets) stay for the next ones; `close` stops them. A worker ends with
the server's process however it ends (lifeline.py), and with the workers gone,
multiprocessing's resource tracker sees its pipe close and ends too. `shared()` is the
process-wide pool every `Compute()` uses unless given its own.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor
from typing import Any, TypeVar

from server.games import RULES
from server.games.base import PreparedDeal
from server.games.gaps_par import par_for
from server.ops import lifeline

R = TypeVar("R")
WORKERS = 2  # the searches of a few creations at once; each holds one core


class Compute:
    """Where CPU-heavy jobs run: `executor` (tests may pass an inline one), else a pool
    of `workers` processes made on first use, their priority lowered by `nice` (a pool
    for background work: what it does yields the cores to the server's own process)."""

    def __init__(
        self, executor: Executor | None = None, workers: int = WORKERS, nice: int = 0
    ) -> None:
        self._executor = executor
        self._workers = workers
        self._nice = nice

    def executor(self) -> Executor:
        if self._executor is None:
            self._executor = ProcessPoolExecutor(
                self._workers,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=lifeline.worker_start,  # dies with this process
                initargs=(os.getpid(), self._nice),
            )
        return self._executor

    async def run(self, job: Callable[..., R], *args: Any) -> R:
        """`job(*args)` in a worker; its result, or the exception it raised."""
        return await asyncio.get_running_loop().run_in_executor(self.executor(), job, *args)

    def close(self) -> None:
        """Stop the workers (a job started later makes a new pool)."""
        executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=False, cancel_futures=True)


_SHARED = Compute()


def shared() -> Compute:
    """The process-wide pool."""
    return _SHARED


# -- jobs ------------------------------------------------------------------------------
def prepare_deal(game: str, seed: bytes, options: dict[str, Any]) -> PreparedDeal:
    """`GameRules.prepare_deal` of the game (a guaranteed deal's search), by name and
    options as stored, so that only plain values cross to the worker."""
    rules = RULES[game]
    return rules.prepare_deal(seed, rules.parse_options(options))


ParResult = tuple[int, int, list[dict[str, Any]] | None]  # progress, resets, line


def entry_par(
    seed_hex: str,
    options: dict[str, Any],
    player_id: int,
    deal_attempt: int,
    witness: list[dict[str, Any]],
) -> ParResult:
    """The par of one Gaps entry (games/gaps_par.par_for, within its default budgets):
    the entry's own actions are the witness."""
    par = par_for(bytes.fromhex(seed_hex), options, player_id, witness, deal_attempt=deal_attempt)
    return par.progress, par.resets, par.line


def solution_par(
    seed_hex: str, options: dict[str, Any], deal_attempt: int, solution: list[dict[str, Any]]
) -> ParResult:
    """A guaranteed Klondike deal's par: where its solution leads (cards on foundations,
    recycles used); the line is the tournament's solution itself (None)."""
    rules = RULES["klondike"]
    end = rules.replay(
        bytes.fromhex(seed_hex),
        rules.parse_options(options),
        solution,
        player_id=0,
        deal_attempt=deal_attempt,
    )
    return end.progress, end.resets, None
