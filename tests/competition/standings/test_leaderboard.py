"""The live leaderboard equals `standings()` computed from scratch at the same now."""

from __future__ import annotations

from bisect import bisect_left

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.competition.standings.leaderboard import EntryRow, Leaderboard
from server.domain.model import Figures
from server.domain.ranking import Standing, standings
from server.games.base import Status

PLAYING, WON, LOST, RESIGNED, TIMED_OUT = (s.value for s in Status)


def entry(
    player: str,
    status: str,
    progress: int,
    resets: int,
    score: int,
    time_ms: int,
    started_at: int,
    deadline: int,
) -> EntryRow:
    """A row from its figures spread out (in Figures' order)."""
    figures = Figures(Status(status), progress, resets, score, time_ms)
    return EntryRow(player, figures, started_at, deadline)


def with_figures(row: EntryRow, **figures: object) -> EntryRow:
    """The row with some of its figures changed."""
    return row._replace(figures=row.figures._replace(**figures))


NAMES = ["ann", "Ann", "bob", "BOB2", "cy", "dee", "Eve", "fay"]
WATCHER = "watcher"  # never enters
WINDOWS = [(0, 0), (0, 2), (1, 1), (2, 1), (3, 0), (3, 2)]  # (top, around)


# -- the oracle ------------------------------------------------------------
def scratch(rows: dict[str, EntryRow], now: int) -> list[Standing]:
    return standings(r.result(now) for r in rows.values())


def shape(table: list[Standing]) -> list[tuple[object, ...]]:
    """What a version stands for: the table but the running clocks of playing games."""
    return [
        (s.rank, s.player, s.status, s.progress, s.resets, s.score)
        + ((None,) if s.status == PLAYING else (s.time_ms,))
        for s in table
    ]


def expected_window(
    table: list[Standing], top: int, around: int, player: str | None
) -> list[Standing]:
    picked = set(range(min(top, len(table))))
    where = [i for i, s in enumerate(table) if s.player == player]
    if where:
        p = where[0]
        picked |= set(range(max(p - around, 0), min(p + around + 1, len(table))))
    return [table[i] for i in sorted(picked)]


def expected_gap(table: list[Standing], window: list[Standing], top: int) -> int | None:
    """Rows are left out after the first `top` when the window is not a run from the top."""
    return None if window == table[: len(window)] else min(top, len(table))


def assert_every_meeting_is_watched(lb: Leaderboard) -> None:
    """White box: the kinetic invariant. For every running row and the first fixed row
    at or after it in its group, when that running row is the last one before it,
    their next event (meet at S+T, or pass at now+1 when tied now) is pending; every
    running row has its deadline pending and is before it."""
    now = lb.now
    for group, starts in lb._starts.items():
        times = lb._times.get(group, [])
        for s in set(starts):
            i = bisect_left(times, now - s)
            if i == len(times):
                continue
            t = times[i]
            if starts[bisect_left(starts, now - t)] != s:
                continue  # another running row is between them
            meet = s + t
            event = (meet, 0, *group, s, t) if meet > now else (now + 1, 1, *group, s, t)
            assert event in lb._pending, (event, group, starts, times, now)
    caps = set(lb._caps)
    for player in lb._recs:
        rec = lb._recs[player]
        if rec.running:
            row = rec.row
            assert row.deadline > now
            assert (row.deadline, row.started_at, player) in caps


def check(lb: Leaderboard, rows: dict[str, EntryRow], now: int) -> list[Standing]:
    """Every way of reading the leaderboard against the table from scratch."""
    assert lb.now == now
    assert_every_meeting_is_watched(lb)
    table = scratch(rows, now)
    assert lb.rows() == table
    assert lb.total == len(rows) == len(lb)
    for player in [*NAMES, WATCHER, None]:
        if player is not None:
            want = next((s.rank for s in table if s.player == player), None)
            assert lb.rank_of(player) == want
        for top, around in WINDOWS:
            want = expected_window(table, top, around, player)
            assert lb.window(top, around, player) == want, (top, around, player)
            assert lb.window_and_gap(top, around, player) == (want, expected_gap(table, want, top))
    n = len(table)
    for limit in (1, 3, 100):
        for offset in {0, 1, max(n - limit, 0), max(n - 1, 0), n, n + 1, n + 7}:
            assert lb.page(offset, limit) == table[offset : offset + limit], (offset, limit)
    assert lb.page(0, 0) == []
    return table


# -- random event sequences -------------------------------------------------
class Run:
    """A leaderboard, the same entries kept plainly, and the checks after each step."""

    def __init__(self, budget: int) -> None:
        self.now = 100
        self.lb = Leaderboard(self.now, event_budget=budget)
        self.rows: dict[str, EntryRow] = {}
        self.table = check(self.lb, self.rows, self.now)

    def upsert(self, row: EntryRow) -> None:
        version = self.lb.version
        before = shape(self.table)
        self.rows[row.player] = row
        changed = self.lb.upsert(row)
        self.table = check(self.lb, self.rows, self.now)
        moved = shape(self.table) != before
        assert changed == moved, (row, before, shape(self.table))
        assert self.lb.version == version + (1 if moved else 0)

    def advance(self, now: int) -> None:
        version = self.lb.version
        before = shape(self.table)
        self.now = now
        changed = self.lb.advance(now)
        self.table = check(self.lb, self.rows, self.now)
        moved = shape(self.table) != before
        assert changed == moved, (now, before, shape(self.table))
        assert self.lb.version == version + (1 if moved else 0)


small = st.integers(0, 3)


@st.composite
def any_row(draw: st.DrawFn, now: int) -> EntryRow:
    """Any figures at all, from few values so ties are common."""
    started = now - draw(st.sampled_from([0, 1, 2, 3, 5, 8, 13]))
    return entry(
        player=draw(st.sampled_from(NAMES)),
        status=draw(st.sampled_from([PLAYING, PLAYING, WON, LOST, RESIGNED, TIMED_OUT])),
        progress=draw(st.sampled_from([0, 1, 1])),
        resets=draw(st.sampled_from([0, 0, 1])),
        score=draw(st.integers(0, 2)),
        time_ms=draw(st.sampled_from([0, 1, 2, 3, 5, 8, 13])),
        started_at=started,
        deadline=started + draw(st.sampled_from([0, 1, 3, 6, 10, 20, 1000])),
    )


def lifecycle(draw: st.DrawFn, run: Run) -> EntryRow | None:
    """The next thing a player does in a tournament: join, move, redeal, end."""
    name = draw(st.sampled_from(NAMES))
    old = run.rows.get(name)
    if old is None:
        limit = draw(st.sampled_from([4, 9, 15, 1000]))
        return entry(name, PLAYING, 0, 0, 0, 0, run.now, run.now + limit)
    if old.figures.status != PLAYING:
        return old  # an ended game is sent again: nothing changes
    spent = old.time_at(run.now)
    if run.now >= old.deadline:
        return with_figures(old, status=TIMED_OUT, time_ms=spent)
    what = draw(st.sampled_from(["move", "move", "redeal", "won", "lost", "resigned", "same"]))
    if what == "move":
        return with_figures(old, progress=draw(small), score=draw(st.integers(0, 2)))
    if what == "redeal":
        return with_figures(old, resets=old.figures.resets + 1)
    if what == "won":
        return with_figures(old, status=WON, progress=3, time_ms=spent)
    if what in ("lost", "resigned"):
        return with_figures(old, status=what, time_ms=spent)
    return old


@st.composite
def steps(draw: st.DrawFn) -> list[str]:
    return draw(
        st.lists(
            st.sampled_from(
                ["life", "life", "life", "any", "any", "nudge", "tick", "tick", "jump", "back"]
            ),
            min_size=15,
            max_size=80,
        )
    )


def play(data: st.DataObject, budget: int) -> None:
    run = Run(budget)
    for step in data.draw(steps()):
        if step == "life":
            row = lifecycle(data.draw, run)
            if row is not None:
                run.upsert(row)
        elif step == "any":
            run.upsert(data.draw(any_row(run.now)))
        elif step == "nudge" and run.rows:  # the same figures, another start or deadline
            old = run.rows[data.draw(st.sampled_from(sorted(run.rows)))]
            started = old.started_at + data.draw(st.sampled_from([-2, -1, 1, 2]))
            deadline = old.deadline + data.draw(st.sampled_from([-3, 0, 0, 4]))
            run.upsert(old._replace(started_at=started, deadline=deadline))
        elif step == "tick":
            run.advance(run.now + data.draw(st.sampled_from([0, 1, 1, 2, 3])))
        elif step == "jump":
            run.advance(run.now + data.draw(st.sampled_from([5, 8, 13, 40])))
        else:
            run.advance(run.now - data.draw(st.sampled_from([1, 2, 7])))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_random_events_match_the_table_from_scratch(data: st.DataObject) -> None:
    play(data, budget=4096)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), st.sampled_from([0, 1, 2]))
def test_a_small_event_budget_settles_and_stays_exact(data: st.DataObject, budget: int) -> None:
    play(data, budget=budget)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_many_entrants_and_long_runs(data: st.DataObject) -> None:
    """More players than the fixed pool, joining and finishing as time goes by."""
    now = 0
    lb = Leaderboard(now)
    rows: dict[str, EntryRow] = {}
    table: list[Standing] = []
    for _ in range(data.draw(st.integers(20, 120))):
        version = lb.version
        if data.draw(st.booleans()):
            now += data.draw(st.sampled_from([0, 1, 2, 5]))
            changed = lb.advance(now)
        else:
            name = f"p{data.draw(st.integers(0, 40))}"
            old = rows.get(name)
            if old is None:
                row = entry(name, PLAYING, 0, 0, 0, 0, now, now + 30)
            elif old.figures.status == PLAYING:
                ending = data.draw(st.sampled_from(["move", "move", WON, LOST, TIMED_OUT]))
                if ending == "move":
                    row = with_figures(old, progress=data.draw(small))
                else:
                    row = with_figures(old, status=ending, time_ms=old.time_at(now))
            else:
                row = old
            rows[name] = row
            changed = lb.upsert(row)
        new = scratch(rows, now)
        assert lb.rows() == new
        assert changed == (shape(new) != shape(table))
        assert lb.version == version + changed
        table = new
        for name in ("p0", "p7", "p40"):
            assert lb.window(3, 2, name) == expected_window(table, 3, 2, name)


# -- examples ----------------------------------------------------------------
def done(name: str, progress: int, resets: int, time_ms: int, status: str = WON) -> EntryRow:
    return entry(name, status, progress, resets, progress, time_ms, 0, 10_000)


def board(*rows: EntryRow, now: int = 1000) -> Leaderboard:
    lb = Leaderboard(now)
    for r in rows:
        lb.upsert(r)
    return lb


def names(rows: list[Standing]) -> list[tuple[int, str]]:
    return [(s.rank, s.player) for s in rows]


def test_a_running_clock_passes_a_finished_game_tie_then_behind() -> None:
    lb = Leaderboard(now=0)
    lb.upsert(done("fin", 10, 0, 100, LOST))
    lb.upsert(entry("run", PLAYING, 10, 0, 0, 0, started_at=0, deadline=10_000))
    assert names(lb.rows()) == [(1, "run"), (2, "fin")]
    v = lb.version
    assert not lb.advance(99) and lb.version == v
    assert lb.rows()[0].time_ms == 99
    assert lb.advance(100) and lb.version == v + 1
    assert names(lb.rows()) == [(1, "fin"), (1, "run")]
    assert lb.advance(101) and lb.version == v + 2
    assert names(lb.rows()) == [(1, "fin"), (2, "run")]
    assert not lb.advance(5000)


def test_a_deadline_stops_the_clock_before_it_passes() -> None:
    lb = Leaderboard(now=0)
    lb.upsert(done("fin", 10, 0, 100, LOST))
    lb.upsert(entry("run", PLAYING, 10, 0, 0, 0, started_at=0, deadline=60))
    assert not lb.advance(1000)
    assert [(s.player, s.time_ms) for s in lb.rows()] == [("run", 60), ("fin", 100)]
    assert lb.upsert(
        with_figures(lb.get("run") or done("?", 0, 0, 0), status=TIMED_OUT, time_ms=60)
    )


def test_the_clock_stepping_back_is_exact_too() -> None:
    lb = Leaderboard(now=200)
    lb.upsert(done("fin", 10, 0, 100, LOST))
    lb.upsert(entry("run", PLAYING, 10, 0, 0, 0, started_at=0, deadline=150))
    assert names(lb.rows()) == [(1, "fin"), (2, "run")]
    assert lb.advance(50)
    assert [(s.player, s.time_ms) for s in lb.rows()] == [("run", 50), ("fin", 100)]


def test_the_same_figures_again_change_nothing() -> None:
    lb = board(done("a", 48, 0, 50))
    v = lb.version
    assert not lb.upsert(done("a", 48, 0, 50)) and lb.version == v
    assert lb.upsert(done("a", 48, 0, 51)) and lb.version == v + 1


@pytest.mark.parametrize("n", [0, 1, 2])
def test_tiny_tables(n: int) -> None:
    lb = board(*(done(f"p{i}", 1, 0, 1) for i in range(n)))
    assert [s.rank for s in lb.rows()] == [1] * n
    assert lb.window(0, 0, "p0") == lb.rows()[:1]
    assert lb.total == n


def test_a_running_row_leaving_its_group_lets_the_one_behind_meet_the_next() -> None:
    lb = Leaderboard(now=0)
    lb.upsert(done("f1", 1, 0, 50, LOST))
    lb.upsert(entry("a", PLAYING, 1, 0, 0, 0, started_at=0, deadline=1000))
    lb.upsert(entry("b", PLAYING, 1, 0, 0, 0, started_at=-20, deadline=1000))
    lb.upsert(done("f2", 1, 0, 30, LOST))
    assert lb.upsert(entry("b", PLAYING, 2, 0, 0, 0, started_at=-20, deadline=1000))
    assert not lb.advance(29)
    assert lb.advance(30)
    assert names(lb.rows()) == [(1, "b"), (2, "a"), (2, "f2"), (4, "f1")]


def test_a_fixed_row_leaving_its_group_lets_the_one_before_meet_the_next() -> None:
    lb = Leaderboard(now=0)
    lb.upsert(done("f1", 1, 0, 10, LOST))
    lb.upsert(entry("a", PLAYING, 1, 0, 0, 0, started_at=0, deadline=1000))
    lb.upsert(entry("c", PLAYING, 1, 0, 0, 0, started_at=-20, deadline=1000))
    lb.upsert(done("f3", 1, 0, 40, LOST))
    lb.upsert(entry("c", PLAYING, 2, 0, 0, 0, started_at=-20, deadline=1000))
    lb.upsert(done("f1", 0, 0, 10, LOST))
    assert not lb.advance(39)
    assert lb.advance(40)
    assert names(lb.rows()) == [(1, "c"), (2, "a"), (2, "f3"), (4, "f1")]


def test_a_new_start_that_only_breaks_a_tie_is_a_change() -> None:
    lb = Leaderboard(now=50)
    lb.upsert(done("y", 1, 0, 50, LOST))
    lb.upsert(entry("x", PLAYING, 1, 0, 0, 0, started_at=0, deadline=1000))
    assert names(lb.rows()) == [(1, "x"), (1, "y")]
    assert lb.upsert(entry("x", PLAYING, 1, 0, 0, 0, started_at=1, deadline=1000))
    assert names(lb.rows()) == [(1, "x"), (2, "y")]
    assert not lb.upsert(entry("x", PLAYING, 1, 0, 0, 0, started_at=2, deadline=1000))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_one_crowded_group_with_rows_leaving_and_coming_back(data: st.DataObject) -> None:
    """Every row in one (progress, resets) group but those that step out for a while:
    running and finished rows meet often, and rows leave from between others."""
    run = Run(4096)
    for _ in range(data.draw(st.integers(10, 60))):
        step = data.draw(st.sampled_from(["add", "add", "leave", "tick", "tick", "jump"]))
        if step == "add":
            row = data.draw(any_row(run.now))
            run.upsert(with_figures(row, progress=1, resets=0))
        elif step == "leave" and run.rows:
            old = run.rows[data.draw(st.sampled_from(sorted(run.rows)))]
            run.upsert(with_figures(old, progress=2 if old.figures.progress == 1 else 1))
        elif step == "tick":
            run.advance(run.now + data.draw(st.sampled_from([1, 2, 3])))
        elif step == "jump":
            run.advance(run.now + data.draw(st.sampled_from([5, 8, 13])))
