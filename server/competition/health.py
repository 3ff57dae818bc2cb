"""The server's health as its HTTP routes report it (`/healthz`, `/metrics`): whether the
database answers, and how many entries each status holds."""

from __future__ import annotations

from dataclasses import dataclass

from server.store.repository import Store


@dataclass(frozen=True, slots=True)
class Health:
    """Reads for the operator's monitoring; they change nothing."""

    store: Store

    async def ping(self) -> bool:
        """True when the database answers a trivial query (within 2 s); never raises."""
        return await self.store.ping()

    async def games_by_status(self) -> dict[str, int]:
        """How many entries each status holds ('playing', 'finished', ...); raises when
        the database is away."""
        return await self.store.games_by_status()
