"""Exports of a closed tournament: one entry's game record and the tournament's bundle
(RECORD.md), with the revealed seed and the receipts' log hashes."""

from __future__ import annotations

from typing import Any

import orjson

from server.audit import receipts
from server.audit.records import record_tournament
from server.competition import fairplay
from server.competition.bundles import bundle_bytes, entry_record
from server.competition.catalogue import Catalogue
from server.competition.errors import CompetitionError
from server.domain.model import EntryInfo, LoggedAction, TournamentInfo
from server.store.repository import Store


class Exports:
    """Records and bundles, refused (`not_revealed`) before the close."""

    def __init__(self, store: Store, catalogue: Catalogue) -> None:
        self.store = store
        self.catalogue = catalogue

    async def reveal(self, t: TournamentInfo) -> tuple[str, str]:
        """The seed and the receipts' root of a closed tournament, what its `closed`
        message carries (`not_revealed` before the close); the root is computed once."""
        seed = await self.catalogue.revealed(t)
        runtime = self.catalogue.tournaments.get(t.id)
        if runtime is not None and runtime.log_root is not None:
            return seed, runtime.log_root  # (it never changes)
        root = await log_root_of(self.store, t)
        if runtime is not None:
            runtime.root_known(root)
        return seed, root

    async def record(self, tournament_id: int, player_name: str) -> dict[str, Any]:
        """The record of `player_name`'s game; `not_found` without an entry."""
        t = await self.catalogue.find(tournament_id)
        seed = await self.catalogue.revealed(t)
        player = await self.store.player_by_name(player_name)
        entry = None if player is None else await self.store.entry(t.id, player.id)
        if entry is None:
            raise CompetitionError(
                "not_found",
                f"{player_name!r} has no entry in tournament {t.id}",
                reason="no_entry_of",
                params={"name": player_name[:32], "id": t.id},
            )
        record = entry_record(record_tournament(t, seed), entry, await self.store.actions(entry.id))
        await fairplay.bundle_parts(self.store, t, [entry], [record])  # bot, disqualified
        return record

    async def bundle(self, tournament_id: int) -> dict[str, Any]:
        """Every record, the final standings and the root of the receipts: the bundle's
        bytes (`bundles.bundle_bytes`, the one writer of bundles) as an object."""
        t = await self.catalogue.find(tournament_id)
        seed = await self.catalogue.revealed(t)
        bundle: dict[str, Any] = orjson.loads(await bundle_bytes(self.store, t, seed))
        return bundle


async def log_root_of(store: Store, t: TournamentInfo) -> str:
    """The root of the tournament's receipts (RECORDS.md) at the close, from the heads
    the entries' rows cache (at their last checkpoint, live.CHECKPOINT) chained on over
    the actions after it, read in one query for the whole tournament; a row without a
    head (stored before receipts) is chained from the start."""
    entries = await store.entries(t.id)
    tails = await store.log_tails(t.id)
    return receipts.log_root((e.player_id, _head(t, e, tails.get(e.id, []))) for e in entries)


def _head(t: TournamentInfo, e: EntryInfo, tail: list[LoggedAction]) -> str:
    if e.log_hash and not tail:
        return e.log_hash  # the cached head is current
    return receipts.extend(t.commitment, e.player_id, e.log_hash, e.log_seq, tail).hex()
