"""The lifecycle clock of a server: open tournaments at their start, close them at their
end (ending running games as timed out and revealing the seed), time out games whose
deadline passed, and learn of tournaments created, opened or closed elsewhere.

Only a server runs `tick`; the operator's command line never does (its changes are
learnt from notices or, on SQLite, by the polls below).
Where several nodes share the database, only the node holding the leader's lock opens,
closes and times out (and each of those is a conditional update that exactly one caller
wins, so even two leaders for a moment do each thing once); every node learns of the
changes from notices (`learn`), and only SQLite's single node polls the store (its
tournaments, and its count of disqualified entries per tournament, each tick).
A tournament with a public beacon opens only once its round is verified, or is void
(`Beacons`, beacons.py).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from datetime import datetime

from server.competition.beacons import Beacons
from server.competition.catalogue import Catalogue
from server.competition.errors import CompetitionError
from server.competition.exports import Exports
from server.competition.par import ParStep
from server.competition.play import Play
from server.competition.ratings import rate_closed
from server.competition.schedules import Schedules
from server.competition.tournament import (
    CLOSED,
    Changed,
    Closed,
    Disqualified,
    ParAdded,
    Ticked,
    Tournament,
)
from server.domain.model import TournamentInfo, TournamentStatus
from server.store import fairplay as stored_fairplay
from server.store.repository import Store

log = logging.getLogger("samedeal.lifecycle")


class Lifecycle:
    """Opening, closing and timing out, by the clock or on an operator's request."""

    def __init__(
        self,
        store: Store,
        catalogue: Catalogue,
        play: Play,
        exports: Exports,
        schedules: Schedules,
        now: Callable[[], datetime],
    ) -> None:
        self.store = store
        self.catalogue = catalogue
        self.tournaments = catalogue.tournaments
        self.play = play
        self.exports = exports
        self.now = now
        self.leadership = store.leadership()  # None: this node is the only one
        self.beacons = Beacons(catalogue, self.close)  # beacon tournaments' waiting
        self.schedules = schedules  # its occurrences are created on the leader's tick
        self._disqualified: dict[int, int] | None = None  # per tournament, as last polled
        self.par: ParStep | None = None  # a server's par step (`enable_par`)

    def enable_par(self, step: ParStep | None = None) -> ParStep:
        """Compute par after each close (a server does; command lines leave it to the
        server), with `step` or a ParStep of its own; the par step, once started, also
        takes in what a stopped server left."""
        self.par = step or ParStep(self.store, self._par_added, self.now, deal_seed=self._deal_seed)
        return self.par

    def _deal_seed(self, t: TournamentInfo, secret: bytes) -> bytes:
        """The seed closed tournament t's deals read (its beacon's deal seed, if any)."""
        return self.catalogue.beacon_config.dealing_seed(t.id, t.beacon, secret)

    def _par_added(self, tournament_id: int) -> None:
        self.tournaments.receive(tournament_id, ParAdded())

    async def start(self) -> None:
        """Load the tournaments; do at once what fell due while no server ran."""
        await self.refresh()
        await self.tick()
        if self.par is not None:
            self.par.wake()  # par a stopped server left unfinished

    async def stop(self) -> None:
        self.beacons.stop()
        if self.par is not None:
            await self.par.stop()
        if self.leadership is not None:
            await self.leadership.close()

    async def tick(self) -> None:
        """Open, close and time out what is due (the leader); advance running clocks."""
        if not self.store.shared:
            await self.refresh()  # the operator's command line may have changed things
            await self._disqualified_elsewhere()
        if self.leadership is None or await self.leadership.leading():
            await self._due()
        for t in self.tournaments.live():  # running clocks passing others
            t.receive(Ticked())
        if self.par is not None:
            self.par.poke()  # closes this node never announced

    async def _due(self) -> None:
        now = self.now()
        await self.schedules.ensure(now)  # the schedules' occurrences due now
        for runtime in self.tournaments.live():
            t = runtime.info
            if t.status == TournamentStatus.SCHEDULED and t.beacon is not None:
                await self.beacons.step(runtime)  # opens once its round is verified
            elif t.status == TournamentStatus.SCHEDULED and now >= t.starts_at:
                await self.store.open_tournament(t.id)  # False: another node did
                self.tournaments.receive(t.id, Changed(await self.catalogue.reload(t.id)))
            if t.status != CLOSED and now >= t.ends_at and not runtime.closing:
                with contextlib.suppress(CompetitionError):  # closed meanwhile (a notice)
                    await self.close(t.id)
        for e in await self.store.due_entries(now):
            await self.play.expire(e)

    async def learn(self, tournament_id: int) -> None:
        """A tournament changed on some node: read it again and tell the listeners."""
        old = self.catalogue.cached(tournament_id)
        t = await self.catalogue.reload(tournament_id)
        if old.status == t.status if old is not None else t.status == CLOSED:
            # No news of its facts: an entry was disqualified (fair play), after the close
            # an amendment (a closed tournament this node no longer holds, too).
            self.tournaments.receive(t.id, Disqualified(amendment=t.status == CLOSED))
        elif t.status == CLOSED:
            await self._closed_elsewhere(t)
        elif old is None or old.status != t.status:
            self.tournaments.receive(t.id, Changed(t))

    async def _disqualified_elsewhere(self) -> None:
        """SQLite: hear of disqualifications another process (the operator's command line)
        made, as PostgreSQL's nodes hear them by notice: each tournament whose count of
        disqualified entries grew since the last tick is learned (its watchers get fresh
        standings; after the close its bundle is rebuilt). The first call only counts."""
        now = await stored_fairplay.counts(self.store)
        seen, self._disqualified = self._disqualified, now
        if seen is None:
            return
        for tournament_id, n in sorted(now.items()):
            if n != seen.get(tournament_id, 0):
                with contextlib.suppress(CompetitionError):  # not found: nothing to tell
                    await self.learn(tournament_id)

    async def refresh(self) -> None:
        """Learn of tournaments created, opened or closed by another process; announce
        each close of a tournament this process held live, once (one closed before
        this process knew it was announced by whoever closed it)."""
        for info in await self.store.tournaments():
            known = self.tournaments.get(info.id)
            if known is None:
                if info.status != CLOSED:
                    self.tournaments.add(info)
                continue
            old = known.info
            known.learn(info)
            if info.status == CLOSED:
                await self._closed_elsewhere(info)
            elif old.status != info.status:
                self.tournaments.receive(info.id, Changed(info))

    async def _closed_elsewhere(self, t: TournamentInfo) -> None:
        """Announce, once, a close made by another process or node."""
        runtime = self.tournaments.get(t.id)
        if runtime is None or runtime.announced or runtime.closing:
            return
        await self._announce_close(t)

    async def close(self, tournament_id: int) -> TournamentInfo:
        """The close seam: close now, end running games as timed out, freeze standings,
        reveal the seed (the clock's, or the operator's verb: it trusts its caller, the
        protocol's access check, net/access.py, or the operator's command line)."""
        runtime = await self.catalogue.runtime(tournament_id)
        if runtime.info.status == CLOSED or runtime.closing:
            raise CompetitionError(
                "closed",
                f"tournament {tournament_id} is already closed",
                reason="tournament_closed",
                params={"id": tournament_id},
            )
        runtime.begin_close()
        try:
            await self._close(runtime)
            t = await self.catalogue.reload(tournament_id)
        finally:
            runtime.end_close()
        await self._announce_close(t)
        return t

    async def _close(self, runtime: Tournament) -> None:
        games = runtime.games()
        for g in games:  # wait for acts in flight; new ones see `closing`
            await g.lock.acquire()
        try:
            closed_at = max(self.now(), runtime.info.starts_at)
            timed_out = await self.store.close_tournament(runtime.id, closed_at)
            if timed_out is None:  # closed meanwhile by another process: its figures stand
                timed_out = []
                runtime.forget_games()
            for entry_id, time_ms in timed_out:
                live = runtime.game_of_entry(entry_id)
                if live is not None:
                    live.time_out(time_ms)
        finally:
            for g in games:
                g.lock.release()

    async def _announce_close(self, t: TournamentInfo) -> None:
        runtime = self.tournaments.get(t.id)
        if runtime is not None:
            runtime.announcing()  # before the reveal's awaits: announced once
        try:
            seed, log_root = await self.exports.reveal(t)
        except BaseException:
            if runtime is not None:
                runtime.announce_failed()  # left to the next refresh or resync
            raise
        log.info("tournament %s closed; seed revealed", t.id)
        self.tournaments.receive(t.id, Closed(t, seed, log_root))
        await rate_closed(self.store, t.id)  # ratings: once per tournament across nodes
        if self.par is not None:
            self.par.wake()  # par: once per entry across nodes
