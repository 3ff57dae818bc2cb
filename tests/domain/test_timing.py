"""The server's default clock."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from server.domain.timing import utcnow


def test_utcnow_is_utc_whole_milliseconds_and_now() -> None:
    for _ in range(10_000):
        now = utcnow()
        assert now.tzinfo is UTC and now.microsecond % 1000 == 0
    assert abs(datetime.now(UTC) - now) < timedelta(seconds=1)
