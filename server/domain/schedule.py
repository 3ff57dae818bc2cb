"""Schedules (COMPETITION.md "Series"): a recurring tournament's arithmetic, pure.

Occurrence k (k = 1, 2, ...) of a schedule starts at first_starts_at + (k - 1) * every_s,
is named `NAME #k`, ends duration_s after its start and takes entries for join_for_s
(else until its end). At time `now` every occurrence whose start is at most every_s
away (plus `LEAD_S`, so a clock tick late still publishes a full period ahead) and whose
end is still ahead must exist; an occurrence that ended while no server ran is skipped,
never created in the past.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, NamedTuple

from server.domain.tournament_options import NAME_MAX_LENGTH, time_limit_fits

MIN_EVERY_S = 60
MAX_EVERY_S = 366 * 86400
MAX_DURATION_S = 31 * 86400
LEAD_S = 30  # created this much earlier than one period ahead (at most every_s / 2)
NAME_MAX = (
    NAME_MAX_LENGTH - 8
)  # room for " #9999999" within the 100 characters of a tournament name


class OccurrenceExists(Exception):
    """The store already holds this (schedule, occurrence): another node created it."""


@dataclass(frozen=True, slots=True)
class NewSchedule:
    """A schedule to store (validated by `check`)."""

    name: str
    game: str
    options: dict[str, Any]
    first_starts_at: datetime
    every_s: int
    duration_s: int
    time_limit_s: int | None = None
    join_for_s: int | None = None
    conditions: dict[str, Any] | None = None
    rated: bool = True
    beacon: dict[str, Any] | None = None
    # club events (v1.4): as on a tournament; its occurrences inherit them
    club_id: int | None = None
    visibility: str = "public"
    entry_code: str | None = None
    created_by: int | None = None


@dataclass(frozen=True, slots=True)
class ScheduleInfo:
    """A stored schedule."""

    id: int
    name: str
    game: str
    options: dict[str, Any]
    first_starts_at: datetime
    every_s: int
    duration_s: int
    time_limit_s: int | None
    join_for_s: int | None
    conditions: dict[str, Any] | None
    rated: bool
    beacon: dict[str, Any] | None
    cancelled: bool
    created_at: datetime
    # club events (v1.4): as on a tournament; its occurrences inherit them
    club_id: int | None = None
    visibility: str = "public"
    entry_code: str | None = None
    created_by: int | None = None


class Occurrence(NamedTuple):
    k: int
    name: str
    starts_at: datetime
    ends_at: datetime
    join_until: datetime


def check(s: NewSchedule) -> str | None:
    """What is wrong with a schedule's figures, in one line; None when nothing is."""
    if not 1 <= len(s.name) <= NAME_MAX:
        return f"a schedule's name is 1-{NAME_MAX} characters (occurrences add ' #k')"
    if not MIN_EVERY_S <= s.every_s <= MAX_EVERY_S:
        return f"every_s is {MIN_EVERY_S} seconds to a year, not {s.every_s}"
    if not 1 <= s.duration_s <= MAX_DURATION_S:
        return f"duration_s is 1 second to 31 days, not {s.duration_s}"
    if s.join_for_s is not None and not 0 <= s.join_for_s <= s.duration_s:
        return "join_for_s is 0 to duration_s"
    if s.time_limit_s is not None and not time_limit_fits(s.time_limit_s):
        return "time_limit_s is 1 second to 7 days"
    if s.first_starts_at.tzinfo is None:
        return "first_starts_at needs a time zone (UTC: a trailing Z)"
    return None


def occurrence(s: ScheduleInfo | NewSchedule, k: int) -> Occurrence:
    """Occurrence k (from 1) of the schedule."""
    starts = s.first_starts_at + timedelta(seconds=(k - 1) * s.every_s)
    ends = starts + timedelta(seconds=s.duration_s)
    join = starts + timedelta(seconds=s.join_for_s) if s.join_for_s is not None else ends
    return Occurrence(k, f"{s.name} #{k}", starts, ends, join)


def _first_not_ended(s: ScheduleInfo | NewSchedule, now: datetime) -> int:
    """The smallest k whose end is after `now`."""
    behind = (now - s.first_starts_at).total_seconds() - s.duration_s  # start of k minus..
    k = max(1, math.floor(behind / s.every_s) + 1)
    while k > 1 and occurrence(s, k - 1).ends_at > now:
        k -= 1
    while occurrence(s, k).ends_at <= now:
        k += 1
    return k


def due(s: ScheduleInfo | NewSchedule, now: datetime) -> list[int]:
    """The occurrences that must exist at `now`: not ended, starting within a period
    (plus the lead)."""
    horizon = now + timedelta(seconds=s.every_s + min(LEAD_S, s.every_s // 2))
    out = []
    k = _first_not_ended(s, now)
    while occurrence(s, k).starts_at <= horizon:
        out.append(k)
        k += 1
    return out


def upcoming(s: ScheduleInfo | NewSchedule, now: datetime, n: int = 3) -> list[Occurrence]:
    """The next `n` occurrences not yet ended at `now` (running ones first)."""
    k = _first_not_ended(s, now)
    return [occurrence(s, k + i) for i in range(n)]


class SeriesFields(NamedTuple):
    """What a tournament carries of the series, spread into NewTournament."""

    schedule_id: int | None = None
    occurrence: int | None = None
    conditions: dict[str, Any] | None = None
    rated: bool = True
