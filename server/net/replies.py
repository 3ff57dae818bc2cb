"""The replies of the ratings, fair-play and schedule messages, built from the
records the competition's parts return (protocol.py builds the v1 ones). The HTTP routes
and the operator's command line print the same objects."""

from __future__ import annotations

from typing import Any

from server.audit.fairplay import Finding
from server.competition.fairplay import DisqualificationMade
from server.competition.ratings import LeaderboardPage, PlayerPage, TournamentResult
from server.competition.schedules import Listing
from server.domain import ratings as math
from server.domain import timing
from server.domain.club_events import ANONYMOUS, Viewer, fields_of
from server.domain.schedule import ScheduleInfo
from server.net import protocol


# -- ratings ----------------------------------------------------------------------------
def leaderboard_message(page: LeaderboardPage) -> dict[str, Any]:
    """The `leaderboard` message: players of the game by rating (mu - 3 sigma), then name."""
    return {
        "type": "leaderboard",
        "game": page.game,
        "offset": page.offset,
        "total": page.total,
        "rows": [
            {
                "rank": page.offset + i + 1,
                "player": r.name,
                "rating": r.rating,
                "mu": r.mu,
                "sigma": r.sigma,
                "tournaments": r.tournaments,
                "provisional": r.tournaments < math.PROVISIONAL_BELOW,
            }
            for i, r in enumerate(page.rows)
        ],
    }


def player_message(page: PlayerPage) -> dict[str, Any]:
    """The `player` message: ratings, recent results, streaks, and (beyond the contract)
    `history`, the rating after each rated tournament per game, for the plot."""
    me = page.profile
    return {
        "type": "player",
        "player": {"name": me.name, "bot": me.bot, "created_at": timing.iso(me.created_at)},
        "ratings": {
            game: {
                "rating": r.rating,
                "mu": r.mu,
                "sigma": r.sigma,
                "tournaments": r.tournaments,
                "rank": rank,
                "provisional": r.tournaments < math.PROVISIONAL_BELOW,
            }
            for game, (r, rank) in page.ratings.items()
        },
        "recent": [_recent(r) for r in page.recent],
        "streak": page.streaks,
        "history": {
            game: [
                {
                    "tournament": p.tournament_id,
                    "closed_at": timing.iso(p.closed_at),
                    "rating": math.shown(p.mu, p.sigma),
                    "mu": p.mu,
                    "sigma": p.sigma,
                }
                for p in points
            ]
            for game, points in page.history.items()
        },
    }


def _recent(r: TournamentResult) -> dict[str, Any]:
    f = r.figures
    return {
        "tournament": r.tournament_id,
        "name": r.name,
        "game": r.game,
        "closed_at": None if r.closed_at is None else timing.iso(r.closed_at),
        "rank": r.rank,
        "entrants": r.entrants,
        "percentile": None if r.rank is None else math.percentile(r.rank, r.ranked),
        "status": f.status,
        "progress": f.progress,
        "resets": f.resets,
        "time_ms": f.time_ms,
        "par": (
            None
            if r.par_progress is None or r.par_resets is None
            else {"progress": r.par_progress, "resets": r.par_resets}
        ),
    }


# -- fair play --------------------------------------------------------------------------
def amended_message(outcome: DisqualificationMade) -> dict[str, Any]:
    """The reply to `disqualify` (PROTOCOL.md v1.3)."""
    return {"type": "amended", "tournament": outcome.tournament_id, "player": outcome.player}


def fairplay_report_message(tournament_id: int, found: list[Finding]) -> dict[str, Any]:
    """The `fairplay_report` reply (beyond the contract: an admin message)."""
    return {
        "type": "fairplay_report",
        "tournament": tournament_id,
        "findings": [f.as_dict() for f in found],
    }


# -- schedules --------------------------------------------------------------------------
def schedule_item(listing: Listing, viewer: Viewer = ANONYMOUS) -> dict[str, Any]:
    """A SCHEDULE object (PROTOCOL.md) with `next`, its next occurrences (a SUMMARY
    for one created, else occurrence, name, starts_at, ends_at), as `viewer` sees it
    (v1.4: the entry code only for its creator, its club's leaders and admins)."""
    nexts: list[dict[str, Any]] = []
    for u in listing.next:
        if u.tournament is None:
            o = u.occurrence
            nexts.append(
                {
                    "occurrence": o.k,
                    "name": o.name,
                    "starts_at": timing.iso(o.starts_at),
                    "ends_at": timing.iso(o.ends_at),
                }
            )
        else:
            nexts.append(protocol.summary(u.tournament, u.seed, viewer))
    return {**schedule_json(listing.schedule, viewer), "next": nexts}


def schedule_json(s: ScheduleInfo, viewer: Viewer = ANONYMOUS) -> dict[str, Any]:
    return {
        "id": s.id,
        "name": s.name,
        "game": s.game,
        "options": s.options,
        "first_starts_at": timing.iso(s.first_starts_at),
        "every_s": s.every_s,
        "duration_s": s.duration_s,
        "time_limit_s": s.time_limit_s,
        "join_for_s": s.join_for_s,
        "conditions": s.conditions,
        "rated": s.rated,
        "beacon": s.beacon,
        "cancelled": s.cancelled,
        **protocol.club_fields(fields_of(s), viewer, battle=False),  # v1.4
    }
