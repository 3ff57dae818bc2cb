"""Time arithmetic of COMPETITION.md, in whole milliseconds. Pure."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

_MS = timedelta(milliseconds=1)


def now_ms_precision(now: datetime) -> datetime:
    """`now` truncated to whole milliseconds (the precision records carry)."""
    return now.replace(microsecond=now.microsecond // 1000 * 1000)


def iso(dt: datetime) -> str:
    """ISO 8601 UTC with milliseconds and a Z, e.g. 2026-11-30T18:02:11.250Z."""
    dt = dt.astimezone(UTC)
    return (
        f"{dt.year:04d}-{dt.month:02d}-{dt.day:02d}T{dt.hour:02d}:{dt.minute:02d}:"
        f"{dt.second:02d}.{dt.microsecond // 1000:03d}Z"
    )


def parse_iso(text: str) -> datetime:
    """A timezone-aware datetime from ISO 8601 (a naive one is taken as UTC)."""
    dt = datetime.fromisoformat(text)
    return dt.replace(tzinfo=UTC) if dt.tzinfo is None else dt.astimezone(UTC)


def ms_between(start: datetime, end: datetime) -> int:
    """Whole milliseconds from start to end (floored)."""
    return (end - start) // _MS


def deadline(started_at: datetime, time_limit_s: int | None, ends_at: datetime) -> datetime:
    """A game's deadline: min(started_at + time_limit_s, ends_at)."""
    if time_limit_s is None:
        return ends_at
    return min(started_at + timedelta(seconds=time_limit_s), ends_at)


def utcnow() -> datetime:
    """Now, in whole milliseconds (the precision records carry): the default clock."""
    return datetime.fromtimestamp(time.time_ns() // 1_000_000 / 1000, UTC)  # exact to the ms


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def epoch_ms(dt: datetime) -> int:
    """Whole milliseconds since the Unix epoch (floored), exactly (no float)."""
    return (dt - _EPOCH) // _MS


def iso_of_epoch_ms(ms: int) -> str:
    """`iso` of a time given in milliseconds since the Unix epoch."""
    return iso(_EPOCH + ms * _MS)
