"""The games in memory: each kept by its tournament's runtime object (tournament.py),
rebuilt from (seed, options, action log) whenever absent."""

from __future__ import annotations

from server.audit import receipts
from server.competition.catalogue import Catalogue
from server.competition.errors import CompetitionError
from server.competition.live_game import PLAYING, TIMED_OUT, LiveGame
from server.domain.model import EntryInfo, canonical_json
from server.games import RULES
from server.store.repository import Store


class LiveGames:
    """The games in memory, by tournament and player; one load at a time per player."""

    def __init__(self, store: Store, catalogue: Catalogue) -> None:
        self.store = store
        self.catalogue = catalogue

    def __len__(self) -> int:
        return sum(len(t.games()) for t in self.catalogue.tournaments.live())

    def cached(self, tournament_id: int, player_id: int) -> LiveGame | None:
        t = self.catalogue.tournaments.get(tournament_id)
        return None if t is None else t.game(player_id)

    def by_entry(self, tournament_id: int, entry_id: int) -> LiveGame | None:
        t = self.catalogue.tournaments.get(tournament_id)
        return None if t is None else t.game_of_entry(entry_id)

    def forget(self, live: LiveGame) -> None:
        """Drop one game (it is rebuilt from the log when next needed)."""
        t = self.catalogue.tournaments.get(live.entry.tournament_id)
        if t is not None:
            t.forget(live)

    def forget_tournament(self, tournament_id: int) -> None:
        t = self.catalogue.tournaments.get(tournament_id)
        if t is not None:
            t.forget_games()

    async def get(self, tournament_id: int, player_id: int) -> LiveGame:
        """The game in memory, rebuilt from the stored log if needed; `not_found` when the
        player has no entry."""
        t = await self.catalogue.runtime(tournament_id)
        live = t.game(player_id)
        if live is not None:
            return live
        async with t.load_lock(player_id):
            live = t.game(player_id)
            if live is not None:
                return live
            entry = await self.store.entry(tournament_id, player_id)
            if entry is None:
                raise CompetitionError(
                    "not_found", "no entry: join the tournament first", reason="no_entry"
                )
            live = await self.rebuild(entry)
            t.keep(live)
            return live

    async def rebuild(self, entry: EntryInfo) -> LiveGame:
        """Replay the entry's stored log from the deal; the chain is hashed on from the
        head the row caches (after log_seq actions, the last checkpoint), or from the
        start when the row holds none (written before receipts)."""
        t = await self.catalogue.find(entry.tournament_id)
        rules = RULES[t.game]
        logged = await self.store.actions(entry.id)
        state = rules.replay(
            await self.catalogue.seed(t.id),
            rules.parse_options(t.options),
            [a.action for a in logged],
            player_id=entry.player_id,
            deal_attempt=t.deal_attempt,
        )
        stored = entry.figures
        status = TIMED_OUT if stored.status == TIMED_OUT else state.status
        last_at = logged[-1].at_ms if logged else 0
        time_ms = stored.time_ms if status == TIMED_OUT else (last_at if status != PLAYING else 0)
        actions = [canonical_json(a.action) for a in logged]
        cached = entry.log_hash if entry.log_seq <= len(logged) else ""  # else: from h0
        head = receipts.extend(
            t.commitment, entry.player_id, cached, entry.log_seq, logged, actions
        )
        return LiveGame(entry, rules, state, actions, last_at, status, time_ms, head)
