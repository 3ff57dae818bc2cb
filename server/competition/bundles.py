"""Bundles of closed tournaments as bytes, built once and shared (RECORD.md v1.3).

A closed tournament's bundle changes only when par or an amendment is added, so it is
built once, as the JSON bytes every request sends (and their gzip), and kept until
`invalidate(tournament_id)` says it changed: the seam for whatever adds par or an
amendment. Concurrent requests for a bundle being built wait for that one build; builds
run one at a time, and a build goes on when its requester has gone (the next request
gets its result). Memory: the cache holds at most `max_bytes` of bundles (the least
recently used go first; the newest is always kept).

A build runs in a worker process of its own (`WORKER`: one process, niced by NICE), not
on the event loop's: a 100,000-entrant bundle is a minute of CPU, and play must not wait
on it. The worker opens the same database (`Store.url`), reads the logs a batch of
entries at a time (`Store.actions_of_entries`, one query per batch, not one per entry),
turns them into bytes with the export functions (`record_of`, `record_tournament`, the
ranking) and compresses them; the server's process only receives the two byte strings.
`bundle_bytes` is the one writer of bundles (`Exports.bundle` parses its bytes), writing
them a record at a time.
"""

from __future__ import annotations

import asyncio
import gc
import zlib
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from server.audit import receipts
from server.audit.records import BUNDLE_FORMAT, record_of, record_tournament, result_of
from server.competition import battles
from server.competition.catalogue import Catalogue
from server.competition.compute import Compute
from server.competition.fairplay import BundleMarks
from server.domain import timing
from server.domain.model import EntryInfo, LoggedAction, TournamentInfo
from server.store.repository import Store

BATCH = 500  # entries whose logs are read in one query
MAX_BYTES = 1 << 30  # bundles (plain and gzip) the cache keeps in all
NICE = 10  # the build worker's priority below the server's
WORKER = Compute(workers=1, nice=NICE)  # the process-wide build worker (made on first use)


@dataclass(frozen=True, slots=True)
class Built:
    """One bundle: its JSON bytes and their gzip."""

    plain: bytes
    gzip: bytes

    @property
    def size(self) -> int:
        return len(self.plain) + len(self.gzip)


class BundleCache:
    """`get(tournament_id)`: the bundle of a closed tournament (CompetitionError
    `not_found` / `not_revealed` otherwise), built at most once until invalidated."""

    def __init__(
        self,
        store: Store,
        catalogue: Catalogue,
        max_bytes: int = MAX_BYTES,
        compute: Compute = WORKER,
    ) -> None:
        self.store = store
        self.catalogue = catalogue
        self.max_bytes = max_bytes
        self.compute = compute
        self._cache: OrderedDict[int, Built] = OrderedDict()
        self._building: dict[int, asyncio.Task[Built]] = {}
        self._generation: dict[int, int] = {}  # grows with every invalidate
        self._one_at_a_time = asyncio.Lock()
        self.builds = 0  # builds started (for tests and benches)
        catalogue.tournaments.on_amended(self.invalidate)  # fair play: an amendment

    async def get(self, tournament_id: int) -> Built:
        t = await self.catalogue.find(tournament_id)
        seed = await self.catalogue.revealed(t)  # not_revealed before the close
        built = self._cache.get(t.id)
        if built is not None:
            self._cache.move_to_end(t.id)
            return built
        task = self._building.get(t.id)
        if task is None:
            task = asyncio.get_running_loop().create_task(self._build(t, seed))
            self._building[t.id] = task
        return await asyncio.shield(task)  # a requester that goes does not cancel it

    def invalidate(self, tournament_id: int) -> None:
        """The bundle changed (par or an amendment added): the next request rebuilds it.
        A build already running finishes for its waiters but is not kept."""
        self._generation[tournament_id] = self._generation.get(tournament_id, 0) + 1
        self._cache.pop(tournament_id, None)
        self._building.pop(tournament_id, None)

    async def _build(self, t: TournamentInfo, seed: str) -> Built:
        generation = self._generation.get(t.id, 0)
        try:
            async with self._one_at_a_time:
                self.builds += 1
                built = await self.compute.run(build, self.store.url, t, seed)
            if self._generation.get(t.id, 0) == generation:
                self._keep(t.id, built)
            return built
        finally:
            if self._generation.get(t.id, 0) == generation:
                self._building.pop(t.id, None)

    def _keep(self, tournament_id: int, built: Built) -> None:
        self._cache[tournament_id] = built
        total = sum(b.size for b in self._cache.values())
        while total > self.max_bytes and len(self._cache) > 1:
            _, dropped = self._cache.popitem(last=False)
            total -= dropped.size


def build(url: str, t: TournamentInfo, seed: str) -> Built:
    """The job a build worker runs: the bundle of closed tournament `t` (revealed `seed`)
    read from the database at `url`, with its gzip. No reference cycle is made, so the
    collector stays off (its passes over a 100,000-record build are most of no use)."""
    gc.disable()
    try:
        return asyncio.run(_built(url, t, seed))
    finally:
        gc.enable()


async def _built(url: str, t: TournamentInfo, seed: str) -> Built:
    store = await Store.open(url, migrate=False)
    try:
        plain = await bundle_bytes(store, t, seed)
    finally:
        await store.close()
    return Built(plain, _gzip(plain))


def _gzip(data: bytes) -> bytes:
    packer = zlib.compressobj(6, zlib.DEFLATED, 31)  # 31: the gzip container
    return packer.compress(data) + packer.flush()


async def bundle_bytes(store: Store, t: TournamentInfo, seed: str) -> bytes:
    """`orjson.dumps` of the tournament's bundle (RECORD.md), made a record at a time."""
    tournament = record_tournament(t, seed)
    entries = await store.entries(t.id)
    marks = await BundleMarks.read(store, t.id)  # fair play's marks and par
    named = await battles.named_clubs(store, t)  # v1.4: a battle's clubs
    out = bytearray(b'{"format":')
    out += orjson.dumps(BUNDLE_FORMAT)
    out += b',"tournament":' + orjson.dumps(tournament) + b',"records":['
    chains: list[tuple[int, str]] = []
    for start in range(0, len(entries), BATCH):
        batch = entries[start : start + BATCH]
        logs = await store.actions_of_entries([e.id for e in batch])
        await marks.read_lines(store, [e.id for e in batch])  # par
        for e in batch:
            record = marks.mark(e, entry_record(tournament, e, logs.get(e.id, ())))
            chains.append((e.player_id, record["log_hash"]))
            if len(chains) > 1:
                out += b","
            out += orjson.dumps(record)
    rows = marks.rows(entries)
    if named is not None:
        rows = battles.with_clubs(rows, {e.player_name: e.club_id for e in entries})
    out += b'],"standings":' + orjson.dumps(rows)
    out += b',"log_root":' + orjson.dumps(receipts.log_root(chains))
    out += b',"amendments":' + orjson.dumps(marks.amendments())
    if named is not None:
        out += b',"clubs":' + orjson.dumps(battles.table_of_rows(t, named, rows))
    return bytes(out + b"}")


def entry_record(
    tournament: dict[str, Any], e: EntryInfo, log: Sequence[LoggedAction]
) -> dict[str, Any]:
    """The record (RECORD.md) of entry `e` of `tournament` (`record_tournament`), its
    log `log`: the one place records are made, for a bundle and for one player."""
    actions = [{"seq": a.seq, "at_ms": a.at_ms, "action": a.action} for a in log]
    record = record_of(
        tournament,
        {"id": e.player_id, "name": e.player_name},
        timing.iso(e.started_at),
        actions,
        result_of(e.figures),
    )
    if tournament.get("battle") is not None:
        record["club"] = e.club_id  # v1.4: the club its entry played for
    return record
