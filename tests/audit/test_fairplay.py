"""The organiser's report (server/audit/fairplay.py), one kind at a time: each finds what
its threshold says, says why with the figures, and stays quiet just past the threshold."""

from __future__ import annotations

import zlib
from datetime import UTC, datetime, timedelta

from server.audit.fairplay import THRESHOLDS, Game, Thresholds, findings, think_times

JOIN = datetime(2026, 11, 30, 18, 0, tzinfo=UTC)
OLD = JOIN - timedelta(days=30)


def moves(n: int, start: int = 0) -> list[dict[str, object]]:
    return [
        {"kind": "move", "card": f"{(i % 12) + 2}H", "to": [i % 4, i % 13]}
        for i in range(start, start + n)
    ]


def human(n: int) -> list[int]:
    """Uneven think times around 2 s."""
    t, out = 0, []
    for i in range(n):
        t += 600 + (i * 7919) % 3000
        out.append(t)
    return out


def game(player: str, actions=None, at_ms=None, bot=False, created=OLD) -> Game:  # type: ignore[no-untyped-def]
    # a start of its own per name, the same in every run (str hashes are salted per
    # process: two names' openings collided about one run in a hundred)
    start = zlib.crc32(player.encode()) % 100
    actions = actions if actions is not None else moves(40, start=start)
    return Game(
        player, bot, created, JOIN, actions, at_ms if at_ms is not None else human(len(actions))
    )


def kinds(found) -> set[tuple[str, tuple[str, ...]]]:  # type: ignore[no-untyped-def]
    return {(f.kind, f.players) for f in found}


def test_defaults_are_the_stated_thresholds() -> None:
    assert Thresholds(20, 150, 30, 0.10, 600) == THRESHOLDS


def test_think_times_count_the_first_from_the_start() -> None:
    assert think_times([100, 250, 250, 900]) == [100, 150, 0, 650]
    assert think_times([]) == []


def test_identical_openings_are_grouped_with_n_configurable() -> None:
    line = moves(20)
    games = [
        game("a", line + moves(5, 50)),
        game("b", line + moves(9, 70)),
        game("c", line[:19] + moves(3, 90)),  # differs at move 20
        game("d", moves(30, 200)),
        game("e", line[:10]),  # too short for 20
    ]
    found = findings(games)
    assert ("same_opening", ("a", "b")) in kinds(found)
    assert not any(f.kind == "same_opening" and "c" in f.players for f in found)
    same = next(f for f in found if f.kind == "same_opening")
    assert same.why.startswith("the first 20 moves of these 2 entries are identical")
    assert same.figures == {"moves": 20, "entries": 2}
    by_10 = findings(games, Thresholds(opening_moves=10))
    assert ("same_opening", ("a", "b", "c", "e")) in kinds(by_10)


def test_fast_needs_a_median_under_150_ms_over_30_moves() -> None:
    fast = [i * 100 + (i % 3) * 30 for i in range(1, 31)]  # uneven, median 130
    found = findings([game("quick", moves(30), fast)])
    assert ("fast", ("quick",)) in kinds(found)
    f = next(f for f in found if f.kind == "fast")
    assert "over 30 moves (under 150 ms)" in f.why and f.figures["moves"] == 30
    assert f.figures["median_ms"] < 150
    assert "fast" not in {f.kind for f in findings([game("short", moves(29), fast[:29])])}
    slow = [i * 150 for i in range(1, 31)]  # median exactly 150: not under
    assert "fast" not in {f.kind for f in findings([game("edge", moves(30), slow)])}


def test_even_think_times_are_a_spread_under_a_tenth_of_the_mean() -> None:
    metronome = [i * 1000 + (i % 2) * 30 for i in range(1, 41)]
    found = findings([game("metronome", moves(40), metronome)])
    even = next(f for f in found if f.kind == "even")
    assert even.players == ("metronome",)
    assert "mean 1000 ms" in even.why and "under 10%" in even.why and "over 40 moves" in even.why
    assert even.figures["stdev_ms"] < 100
    assert "even" not in {f.kind for f in findings([game("person", moves(40), human(40))])}


def test_new_accounts_under_ten_minutes_before_joining() -> None:
    found = findings(
        [
            game("fresh", created=JOIN - timedelta(seconds=125)),
            game("day_old", created=JOIN - timedelta(days=1)),
            game("edge", created=JOIN - timedelta(seconds=600)),
        ]
    )
    assert kinds(found) & {("new_account", (p,)) for p in ("fresh", "day_old", "edge")} == {
        ("new_account", ("fresh",))
    }
    line = next(f for f in found if f.kind == "new_account").line()
    assert line == "new_account  fresh: account created 2 min 5 s before joining (under 10 min)"


def test_bots_are_listed() -> None:
    found = findings([game("robot", bot=True), game("person")])
    assert [f.line() for f in found if f.kind == "bot"] == [
        "bot          robot: registered as a bot"
    ]


def test_nothing_to_report_on_ordinary_play() -> None:
    assert findings([game("a"), game("b"), game("c")]) == []
