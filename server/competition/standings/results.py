"""A closed tournament's final standings as CSV (`GET /tournaments/ID/results.csv`):
a header line, then one row per entry in standings order, after the reveal only; a team
battle's (v1.4) with a last column, `club`: the name of the club the entry played for."""

from __future__ import annotations

import csv
import io

from server.competition import battles
from server.competition.catalogue import Catalogue
from server.domain.ranking import Result, Unranked, standings_without
from server.store import fairplay as fair_store
from server.store import rating_reads as stored
from server.store.repository import Store

COLUMNS = ("rank", "player", "bot", "status", "progress", "resets", "time_ms", "score")
COLUMNS_V13 = (*COLUMNS, "disqualified")  # fair play: the reason, empty when ranked


async def results_csv(store: Store, catalogue: Catalogue, tournament_id: int) -> str:
    """The CSV text (RFC 4180, CRLF line ends); `not_found` for no such tournament and
    `not_revealed` before its close (CompetitionError)."""
    t = await catalogue.find(tournament_id)
    await catalogue.revealed(t)
    entries = await store.entries(t.id)
    bot_ids = await stored.bots_in(store, t.id)
    bots = {e.player_name for e in entries if e.player_id in bot_ids}
    rows = standings_without(  # fair play: the disqualified unranked, after the others
        (Result(e.player_name, e.figures) for e in entries),
        await fair_store.reasons(store, t.id),
    )
    named = await battles.named_clubs(store, t)
    names = dict(named or ())
    club = {e.player_name: names.get(e.club_id or 0, "") for e in entries}
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(COLUMNS_V13 if named is None else (*COLUMNS_V13, "club"))
    for r in rows:
        bot = "true" if r.player in bots else "false"
        reason = r.disqualified if isinstance(r, Unranked) else ""
        line = (r.rank, r.player, bot, r.status, r.progress, r.resets, r.time_ms, r.score, reason)
        writer.writerow(line if named is None else (*line, club[r.player]))
    return out.getvalue()
