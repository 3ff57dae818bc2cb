"""A standings frame is bounded by its window, never by the number of entrants."""

from __future__ import annotations

import random

import orjson

from server.competition.standings.leaderboard import EntryRow, Leaderboard
from server.competition.standings.reading import View
from server.net import protocol
from tests.support.factories import figures

KIB = 1024


def crowded(entrants: int) -> Leaderboard:
    """Long names, big ranks and times, every status: the largest rows there can be."""
    rnd = random.Random(entrants)
    board = Leaderboard(now=10**12)
    statuses = ["playing", "won", "lost", "resigned", "timed_out"]
    for i in range(entrants):
        progress = rnd.randrange(49)
        board.upsert(
            EntryRow(
                f"{i:06d}" + "x" * 26,  # 32 characters, the longest name
                figures(
                    rnd.choice(statuses),
                    progress,
                    rnd.randrange(3),
                    score=progress - 10,
                    time_ms=rnd.randrange(10**9),
                ),
                10**12 - rnd.randrange(10**9),
                10**12 + 10**9,
            )
        )
    return board


def frame_bytes(board: Leaderboard, top: int, around: int, player: str | None) -> int:
    rows, gap = board.window_and_gap(top, around, player)
    view = View(rows, board.total, 123456, False, board.now, gap)
    return len(orjson.dumps(protocol.standings_message(7, view)))


def test_a_default_window_stays_under_16_kib_whatever_the_entrants() -> None:
    sizes = {}
    for entrants in (10, 1_000, 10_000, 50_000):
        board = crowded(entrants)
        middle = f"{entrants // 2:06d}" + "x" * 26
        sizes[entrants] = frame_bytes(board, 10, 5, middle)
        assert sizes[entrants] < 16 * KIB
    assert sizes[50_000] <= sizes[1_000] + 64  # flat: only ranks' digits grow


def test_the_largest_window_the_protocol_allows_is_bounded_too() -> None:
    board = crowded(20_000)
    middle = f"{10_000:06d}" + "x" * 26
    size = frame_bytes(board, 100, 50, middle)  # 100 + 2 * 50 + 1 rows
    assert size < 32 * KIB
