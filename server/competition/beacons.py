"""Waiting for beacon rounds: a scheduled tournament with a beacon opens only once its
round is fetched and verified (its deal then prepared on the deal seed), and is void,
closed with its seed revealed, when the round cannot be had in time (RNG.md) or the
tournament reaches its end without it.

The lifecycle's clock calls `step` for each such tournament on the leading node. The
fetch, and then the deal's preparation in the runtime's `Compute` pool (a search for a
guaranteed deal takes seconds), run as one background task held by the tournament's
runtime object (`Tournament.beacon_task`), so a slow relay or a search never holds the
clock, and nothing of it outlives the tournament in memory. A failed attempt is tried
again after the configuration's retry_s. Everything decided is in the store (the
tournament's row), so a restart simply resumes waiting; the open is a conditional update
only one node wins, and it enters the runtime as a `Changed` record.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from server.audit.drand import Network, Round
from server.competition import beacon_policy
from server.competition.catalogue import Catalogue
from server.competition.compute import prepare_deal
from server.competition.drand_http import fetch_json
from server.competition.errors import CompetitionError
from server.competition.tournament import Changed, Tournament
from server.domain.model import TournamentInfo
from server.games.base import PreparedDeal

log = logging.getLogger("samedeal.beacon")

Ready = tuple[dict[str, Any], PreparedDeal]  # the verified beacon and the deal on its seed


class Beacons:
    """The beacon tournaments' waiting, driven by the lifecycle's clock."""

    def __init__(self, catalogue: Catalogue, close: Callable[[int], Awaitable[Any]]) -> None:
        self.store = catalogue.store
        self.catalogue = catalogue
        self.tournaments = catalogue.tournaments
        self.close = close

    @property
    def config(self) -> beacon_policy.BeaconConfig:
        return self.catalogue.beacon_config

    async def step(self, t: Tournament) -> None:
        """Advance one scheduled tournament with a beacon: void past its deadline (or at
        its end, when that comes first: a short occurrence of a schedule), else
        ask the relays once the round is due, and open it once the round is verified and
        its deal prepared."""
        info, now = t.info, self.catalogue.now()
        planned = info.beacon or {}
        net = self.config.network(planned)
        if net is None:  # a network this server no longer knows: it cannot be had
            log.error("tournament %s: unknown beacon network %r", info.id, planned)
            if now >= info.starts_at + beacon_policy.VOID_AFTER:
                await self._void(t)
            return
        number = int(planned["round"])
        if now >= min(beacon_policy.void_at(net, number, info.starts_at), info.ends_at):
            await self._void(t)  # never opened, and now never will be
            return
        if now < beacon_policy.due_at(net, number):
            return
        task = t.beacon_task
        if task is None:
            if time.monotonic() >= t.beacon_retry_at:
                t.beacon_awaited(asyncio.create_task(self._fetch_and_deal(info, net, number)))
            return
        if not task.done():
            return
        t.beacon_fetched()
        ready: Ready | None = task.result()
        if ready is None:
            t.beacon_failed(time.monotonic() + self.config.retry_s)
            return
        await self._open(t, *ready)

    async def _fetch_and_deal(
        self, info: TournamentInfo, net: Network, number: int
    ) -> Ready | None:
        """The round, verified, and the deal prepared on its deal seed; None to try again
        (no relay served it yet, or a bug in a fetcher or a search: it must not kill the
        clock)."""
        cfg = self.config
        try:
            relays = beacon_policy.relays_for(net, cfg.relays)
            r: Round | None = await beacon_policy.fetch_round(
                net, number, relays, cfg.fetch or fetch_json, cfg.timeout_s
            )
            if r is None:
                return None
            full = beacon_policy.verified_beacon(info.beacon or {}, r)
            seed = bytes.fromhex(await self.store.secret_seed(info.id))
            deal_seed = self.config.dealing_seed(info.id, full, seed)
            deal = await self.catalogue.compute.run(
                prepare_deal, info.game, deal_seed, info.options
            )
            return full, deal
        except Exception:
            log.exception("tournament %s: beacon round %s or its deal failed", info.id, number)
            return None

    async def _open(self, t: Tournament, full: dict[str, Any], deal: PreparedDeal) -> None:
        """Open with the verified round and its deal, in one conditional update (False:
        another node did, or it was voided); the runtime hears the facts read again."""
        opened = await self.store.open_with_beacon(
            t.id, full, deal.deal_attempt, deal.guaranteed, deal.solution
        )
        if opened:
            log.info("tournament %s: beacon round %s verified; open", t.id, full["round"])
        self.tournaments.receive(t.id, Changed(await self.catalogue.reload(t.id)))

    async def _void(self, t: Tournament) -> None:
        t.stop_waiting()
        if await self.store.mark_void(t.id):
            log.warning("tournament %s is void: its beacon round could not be had", t.id)
        with contextlib.suppress(CompetitionError):  # closed meanwhile
            await self.close(t.id)

    async def fetches_done(self) -> None:
        """Wait for the fetches in flight to end (tests drive the clock with it)."""
        tasks = [t.beacon_task for t in self.tournaments.live() if t.beacon_task is not None]
        if tasks:
            await asyncio.wait(tasks)

    def stop(self) -> None:
        """Cancel every fetch in flight (the server is going down)."""
        for t in self.tournaments.live():
            t.stop_waiting()
