"""Waiting for beacon rounds: a scheduled tournament with a beacon opens only once its
round is fetched and verified (its deal then prepared on the deal seed), and is void,
closed with its seed revealed, when the round cannot be had in time (RNG.md).

The lifecycle's clock calls `step` for each such tournament on the leading node; fetches
run as background tasks, so a slow relay never holds the clock; a failed attempt is tried
again after the configuration's retry_s. Everything it decides is in the store (the
tournament's row), so a restart simply resumes waiting, and the open is a conditional
update only one node wins.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any

from server.audit.beacon import Network, Round
from server.competition import beacon
from server.competition.catalogue import Catalogue
from server.competition.errors import CompetitionError
from server.competition.events import Events
from server.competition.relays import fetch_json
from server.games import RULES
from server.store.repository import Store

log = logging.getLogger("samedeal.beacon")


class Beacons:
    """The tournaments waiting for their round, on this node."""

    def __init__(
        self,
        store: Store,
        catalogue: Catalogue,
        events: Events,
        close: Callable[[int], Awaitable[Any]],
    ) -> None:
        self.store = store
        self.catalogue = catalogue
        self.events = events
        self.close = close
        self._fetching: dict[int, asyncio.Task[Round | None]] = {}
        self._next_try: dict[int, float] = {}

    @property
    def config(self) -> beacon.BeaconConfig:
        return self.catalogue.beacon_config

    async def step(self, tournament_id: int, planned: dict[str, Any], starts_at: datetime) -> None:
        """Advance one scheduled tournament with a beacon: void past its deadline, else
        ask the relays once the round is due, and open it once the round is verified."""
        now = self.catalogue.now()
        net = self.config.network(planned)
        number = int(planned["round"])
        if net is None:  # a network this server no longer knows: it cannot be had
            log.error("tournament %s: unknown beacon network %r", tournament_id, planned)
            if now >= starts_at + beacon.VOID_AFTER:
                await self._void(tournament_id)
            return
        if now >= beacon.void_at(net, number, starts_at):
            await self._void(tournament_id)
            return
        if now < beacon.due_at(net, number):
            return
        task = self._fetching.get(tournament_id)
        if task is None:
            if time.monotonic() >= self._next_try.get(tournament_id, 0.0):
                self._fetching[tournament_id] = asyncio.create_task(self._fetch(net, number))
            return
        if not task.done():
            return
        del self._fetching[tournament_id]
        r = task.result()
        if r is None:
            self._next_try[tournament_id] = time.monotonic() + self.config.retry_s
            return
        await self._open(tournament_id, planned, net, r)

    async def _fetch(self, net: Network, number: int) -> Round | None:
        cfg = self.config
        relays = beacon.relays_for(net, cfg.relays)
        try:
            return await beacon.fetch_round(
                net, number, relays, cfg.fetch or fetch_json, cfg.timeout_s
            )
        except Exception:  # a bug in a fetcher must not kill the clock: try again later
            log.exception("beacon: fetching round %s failed", number)
            return None

    async def _open(
        self, tournament_id: int, planned: dict[str, Any], net: Network, r: Round
    ) -> None:
        """Prepare the deal on the deal seed (a search for guaranteed or winnable deals,
        off the event loop's thread), then open with the verified round."""
        t = await self.catalogue.find(tournament_id)
        seed = bytes.fromhex(await self.store.secret_seed(tournament_id))
        full = beacon.verified_beacon(planned, r)
        deal_seed = self.config.dealing_seed(tournament_id, full, seed)
        rules = RULES[t.game]
        deal = await asyncio.to_thread(
            rules.prepare_deal, deal_seed, rules.parse_options(t.options)
        )
        opened = await self.store.open_with_beacon(
            tournament_id, full, deal.deal_attempt, deal.guaranteed, deal.solution
        )
        if opened:
            log.info("tournament %s: beacon round %s of %s verified; open", t.id, r.round, net.name)
        self.catalogue.forget_seed(tournament_id)
        self.events.tournament_changed(await self.catalogue.reload(tournament_id))

    async def _void(self, tournament_id: int) -> None:
        if await self.store.mark_void(tournament_id):
            log.warning("tournament %s is void: its beacon round could not be had", tournament_id)
        self.cancel(tournament_id)
        with contextlib.suppress(CompetitionError):  # closed meanwhile
            await self.close(tournament_id)

    async def fetches_done(self) -> None:
        """Wait for the fetches in flight to end (tests drive the clock with it)."""
        if self._fetching:
            await asyncio.wait(list(self._fetching.values()))

    def cancel(self, tournament_id: int) -> None:
        task = self._fetching.pop(tournament_id, None)
        if task is not None:
            task.cancel()
        self._next_try.pop(tournament_id, None)

    async def stop(self) -> None:
        for tournament_id in list(self._fetching):
            self.cancel(tournament_id)
