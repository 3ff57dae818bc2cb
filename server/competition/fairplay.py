"""Fair play (docs/COMPETITION.md "Fair play"): an operator disqualifies an entry, before
or after the close, and the organiser's reports point at suspicious entries.

`disqualify` keeps the entry with every action and receipt; the standings rank the
others as if it were absent and list it after them (competition/standings/disqualified.py); after
the close it is an amendment of the bundle, and ratings are computed again (the rating
step leaves disqualified entries out: domain/ratings.counts_for_rating). Watchers get
fresh standings through the Events sink. `report` gathers the figures the pure analysis
(server/audit/fairplay.py) reads; it never acts on them.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime
from typing import Any, NamedTuple

from server.audit import fairplay as analysis
from server.audit.fairplay import Thresholds as Thresholds
from server.audit.records import bundle_row
from server.competition.catalogue import Catalogue
from server.competition.errors import CompetitionError
from server.competition.ratings import rebuild
from server.competition.tournament import Disqualified
from server.domain import timing
from server.domain.model import EntryInfo, TournamentInfo
from server.domain.ranking import Result, standings_without
from server.store import accounts as stored_accounts
from server.store import fairplay as stored
from server.store import par as stored_par
from server.store import rating_reads as stored_ratings
from server.store.repository import Store

log = logging.getLogger("samedeal.fairplay")
MAX_REASON = 200


class DisqualificationMade(NamedTuple):
    """A disqualification made: whose, why, and whether it amends a closed bundle."""

    tournament_id: int
    player: str
    reason: str
    at: datetime
    amendment: bool


def _reason(reason: str) -> str:
    text = " ".join(reason.split())
    if not 1 <= len(text) <= MAX_REASON:
        raise CompetitionError(
            "bad_request",
            f"a reason is 1-{MAX_REASON} characters",
            reason="reason_length",
            params={"max": MAX_REASON},
        )
    return text


class FairPlay:
    """The fair-play part: disqualify an entry, and the organiser's report. Both are the
    operator's verbs: they trust their caller (the protocol's access check, net/access.py,
    or the operator's command line)."""

    def __init__(self, store: Store, catalogue: Catalogue, now: Callable[[], datetime]) -> None:
        self.store = store
        self.catalogue = catalogue
        self.now = now

    async def disqualify(
        self, tournament_id: int, player: str, reason: str
    ) -> DisqualificationMade:
        """Disqualify `player`'s entry of the tournament: `bad_request` for an empty or
        long reason or an entry disqualified already, `not_found` without an entry."""
        text = _reason(reason)
        store = self.store
        t = await self.catalogue.find(tournament_id)
        someone = await store.player_by_name(player)
        entry = None if someone is None else await store.entry(t.id, someone.id)
        if entry is None:
            raise CompetitionError(
                "not_found",
                f"{player[:32]!r} has no entry in tournament {t.id}",
                reason="no_entry_of",
                params={"name": player[:32], "id": t.id},
            )
        made = await stored.disqualify(store, entry.id, text, timing.now_ms_precision(self.now()))
        if made is None:
            raise CompetitionError(
                "bad_request",
                f"{entry.player_name!r} is disqualified already",
                reason="disqualified_already",
                params={"name": entry.player_name},
            )
        log.info("tournament %s: %s disqualified (%s)", t.id, entry.player_name, text)
        # its runtime re-ranks and pushes; after the close, the bundle cache forgets it
        self.catalogue.tournaments.receive(t.id, Disqualified(made.after_close))
        if made.after_close:
            await rerate(store)
        return DisqualificationMade(t.id, entry.player_name, text, made.at, made.after_close)

    async def report(
        self, tournament_id: int, thresholds: analysis.Thresholds = analysis.THRESHOLDS
    ) -> list[analysis.Finding]:
        """What the analysis finds in the tournament's entries (never acted on; it reads
        moves before the close)."""
        t = await self.catalogue.find(tournament_id)
        games = []
        for e in await stored.entrants(self.store, t.id):
            actions = await self.store.actions(e.entry_id)
            games.append(
                analysis.Game(
                    player=e.player,
                    bot=e.bot,
                    created_at=e.created_at,
                    joined_at=e.started_at,
                    actions=[a.action for a in actions],
                    at_ms=[a.at_ms for a in actions],
                )
            )
        return analysis.findings(games, thresholds)


async def rerate(store: Store) -> None:
    """Ratings computed again after an amendment: the rebuild replays every closed
    tournament in close order, so every rating from the amended tournament on changes
    and none before it. A failure is logged; `ratings rebuild` repairs it."""
    try:
        await rebuild(store)
    except Exception:
        log.exception("re-rating after an amendment failed; run `ratings rebuild`")


# -- bundles ----------------------------------------------------------------------------
class BundleMarks:
    """What fair play and par add to a closed tournament's records and bundle: each
    record of a bot gets `player.bot`, of a disqualified entry `disqualified`, of an entry
    with a stored par `par` (its line read a batch at a time: `read_lines`); the
    standings rows (the disqualified unranked, after the others; `bot`, `disqualified`
    and `par` on every row) and the amendments, in order. Read once per bundle (`read`)."""

    def __init__(
        self,
        out: dict[int, stored.DisqualifiedEntry],
        bots: set[int],
        par: dict[int, stored_par.ParFigures] | None = None,
        erasures: list[tuple[int, datetime]] | None = None,
    ) -> None:
        self.out, self.bots = out, bots
        self.erasures = erasures or []  # v1.4: (player id, at) of deleted accounts
        self.par = par or {}  # by entry id
        self.lines: dict[int, stored_par.StoredPar] = {}  # the batch's par lines

    @classmethod
    async def read(cls, store: Store, tournament_id: int) -> BundleMarks:
        out = {d.entry_id: d for d in await stored.of_tournament(store, tournament_id)}
        bots = await stored_ratings.bots_in(store, tournament_id)
        pars = await stored_par.figures(store, tournament_id)
        return cls(out, bots, pars, await stored_accounts.of_tournament(store, tournament_id))

    async def read_lines(self, store: Store, entry_ids: list[int]) -> None:
        """The par lines of these entries (the next records `mark`ed), instead of the
        last batch's: a bundle's lines are never all in memory at once."""
        self.lines = await stored_par.of_entries(store, [e for e in entry_ids if e in self.par])

    def mark(self, e: EntryInfo, record: dict[str, Any]) -> dict[str, Any]:
        """`record` (of entry `e`) with its bot, disqualification and par marks."""
        record["player"]["bot"] = e.player_id in self.bots
        d = self.out.get(e.id)
        if d is not None:
            record["disqualified"] = {"reason": d.reason, "at": timing.iso(d.at)}
        p = self.lines.get(e.id)
        if p is not None:
            line = p.line if p.line is not None else record["tournament"]["solution"]
            record["par"] = {"progress": p.progress, "resets": p.resets, "line": line}
        return record

    def rows(self, entries: list[EntryInfo]) -> list[dict[str, Any]]:
        reasons = {d.player: d.reason for d in self.out.values()}
        bot_names = {e.player_name for e in entries if e.player_id in self.bots}
        pars = {e.player_name: self.par.get(e.id) for e in entries}
        results = (Result(e.player_name, e.figures) for e in entries)
        return [
            bundle_row(r.as_dict(), r.player in bot_names, par_row(pars[r.player]))
            for r in standings_without(results, reasons)
        ]

    def amendments(self) -> list[dict[str, Any]]:
        """Disqualifications after the close and (v1.4) erasures, each with its `kind`,
        in order of `at` (a tie: disqualifications first, as they were made first)."""
        made: list[tuple[datetime, int, int, dict[str, Any]]] = [
            (d.at, 0, d.entry_id, _disqualification(d)) for d in self.out.values() if d.after_close
        ]
        made += [(at, 1, pid, _erasure(pid, at)) for pid, at in self.erasures]
        return [a for *_, a in sorted(made, key=lambda m: m[:3])]


def _disqualification(d: stored.DisqualifiedEntry) -> dict[str, Any]:
    return {
        "kind": "disqualification",
        "player": d.player,
        "reason": d.reason,
        "at": timing.iso(d.at),
    }


def _erasure(player_id: int, at: datetime) -> dict[str, Any]:
    return {"kind": "erasure", "player_id": player_id, "at": timing.iso(at)}


def par_row(par: stored_par.ParFigures | None) -> dict[str, int] | None:
    """A standings row's `par` after the close (PROTOCOL.md v1.3): null until computed."""
    return None if par is None else {"progress": par.progress, "resets": par.resets}


async def bundle_parts(
    store: Store, t: TournamentInfo, entries: list[EntryInfo], records: list[dict[str, Any]]
) -> tuple[list[dict[str, Any]], list[dict[str, str]]]:
    """`BundleMarks` applied to `records` (in `entries`' order; they are changed): the
    standings rows and the amendments. (Every par line at once: for a record, or the
    small bundles of `Exports.bundle`; bundles.py reads them a batch at a time.)"""
    marks = await BundleMarks.read(store, t.id)
    await marks.read_lines(store, [e.id for e in entries])
    for e, record in zip(entries, records, strict=True):
        marks.mark(e, record)
    return marks.rows(entries), marks.amendments()
