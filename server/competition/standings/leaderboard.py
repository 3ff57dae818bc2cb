"""Live standings of one tournament, kept in memory and updated one entry at a time.

Pure: no I/O, no asyncio, no clock of its own. Times are integers in
milliseconds (ints for speed; epoch ms, the precision records carry, so
`now - started_at` is `timing.ms_between` for times truncated to the
millisecond): `EntryRow.started_at`, `EntryRow.deadline`, and the `now` passed
to `Leaderboard(now)` and `advance(now)`; `upsert` works at that `now`. Every
query answers at the leaderboard's current `now`, and its answer is always
exactly the matching slice of `standings()` (server/domain/ranking.py)
computed from scratch from every entry's `EntryRow.result(now)`: a running
game ranks on its time so far, `min(now, deadline) - started_at`.

Running clocks
--------------
The order is `order_key` = (group, time, name), the group being (-progress,
resets). Rows are kept in two sorted lists:

* fixed rows: finished games, and playing games past their deadline (their time
  is capped at `deadline - started_at`), keyed on their time;
* running rows: playing games before their deadline, keyed on `-started_at` in
  place of the time. Within a group their time so far is `now - started_at`, so
  this key orders them exactly as their times do, whatever `now` is.

Neither key ever goes stale, so a clock tick re-sorts nothing. The table is
the merge of the two lists, comparing a running row at time `now - started_at`;
positions, ranks and slices come from bisecting both lists (O(log n)), a
window merges O(window) rows from each. A row's rank is one plus the number of
rows whose rank key is smaller (two bisects), so ties at window edges are right.

What a tick can change is the order of a running row against a fixed row of its
group: running row S (started_at) meets fixed row T (time) at `now = S + T`
(they tie) and passes it at `S + T + 1`. The leaderboard keeps, as in a kinetic
sorted list, a heap of those events for the adjacent pairs (for each running
row, the first fixed row at or after it in its group: the earliest meeting in
the whole table is always such a pair) plus a heap of deadlines (where a
running row becomes a fixed, capped one). `advance(now)` plays them in time
order (at one instant, meetings before deadlines), fixing adjacency after each
from small sorted lists of the times and starts of each group; an event whose
two rows are still there is a real change of order or of a shared rank, so it
returns whether the standings changed without comparing tables. Events are
checked lazily (by value: the group and the two times), the event heap is
rebuilt when stale entries pile up, and a jump that would play more than
`event_budget` events settles the deadlines and rebuilds the heap instead
(O(n log n)). A `now` earlier than the
current one (the wall clock stepped back) rebuilds everything, also O(n log n):
a caller whose clock may jitter back should pass `max(now, leaderboard.now)`.

Version
-------
`version` grows by one with every change of the standings, where a change is
any change of the rows apart from the time so far of playing games (that
ticks by itself; clients know `now`): a row added, a change of status,
progress, resets, score or final time, or a change of order or of shared ranks.
`upsert` and `advance` return whether they made such a change.
"""

from __future__ import annotations

import heapq
from bisect import bisect_left, insort

from server.competition.standings.rows import (
    PASS,
    PLAYING,
    TIE,
    Cap,
    EntryRow,
    Event,
    Group,
    Rec,
    Visible,
    visible,
)
from server.competition.standings.sorted_rows import SortedRows
from server.domain.ranking import order_key

__all__ = ["PLAYING", "EntryRow", "Leaderboard"]


class Leaderboard(SortedRows):
    """The standings of one tournament, incrementally; see the module docstring. Its
    rows and their reads are `SortedRows`' (sorted_rows.py); this half writes them."""

    def __init__(self, now: int = 0, *, event_budget: int = 4096) -> None:
        super().__init__(now)
        self._budget = event_budget
        # per group, sorted with repeats: the times of fixed rows, the starts of running ones
        self._times: dict[Group, list[int]] = {}
        self._starts: dict[Group, list[int]] = {}
        self._events: list[Event] = []
        self._pending: set[Event] = set()
        self._caps: list[Cap] = []

    # -- writing -------------------------------------------------------------
    def upsert(self, row: EntryRow) -> bool:
        """Add or replace an entry's figures; whether the standings changed."""
        old = self._recs.get(row.player)
        if old is not None and old.row == row:
            return False
        self._epoch += 1
        same_look = old is not None and visible(old.row) == visible(row)
        before = self._place(old) if old is not None and same_look else None
        if old is not None:
            self._remove(old)
        rec = self._add(row, old)
        if len(self._events) > 2 * len(self._running) + 1024:
            self._rebuild_events()
        if before is not None and before == self._place(rec):
            return False
        self._version += 1
        return True

    def advance(self, now: int) -> bool:
        """Move the clock to `now`; whether the standings changed (see Version)."""
        if now == self._now:
            return False
        self._epoch += 1
        if now < self._now:
            return self._rewind(now)
        changed = False
        budget = self._budget
        events, caps = self._events, self._caps
        while True:
            at_event = events[0][0] if events else None
            at_cap = caps[0][0] if caps else None
            if at_event is not None and at_event <= now and (at_cap is None or at_event <= at_cap):
                event = heapq.heappop(events)
                self._pending.discard(event)
                at, kind, g0, g1, s, t = event
                if not (self._has_running(g0, g1, s) and self._has_fixed(g0, g1, t)):
                    continue
                changed = True
                budget -= 1
                if budget < 0:
                    self._settle(now)
                    break
                if kind == TIE:
                    self._pair(g0, g1, s, t, at)  # tied now: the pass comes next
                else:
                    self._watch_running(g0, g1, s, at)
                    self._watch_fixed(g0, g1, t, at)
            elif at_cap is not None and at_cap <= now:
                cap = heapq.heappop(caps)
                rec = self._capped(cap)
                if rec is not None:
                    self._cap(rec, cap[0], repair=True)
            else:
                break
        self._now = now
        if changed:
            self._version += 1
        return changed

    # -- structure -----------------------------------------------------------
    def _add(self, row: EntryRow, old: Rec | None) -> Rec:
        now, f = self._now, row.figures
        named = old.key[3:] if old is not None else None  # the same player: its name key
        if f.status == PLAYING and row.deadline > now:
            key = order_key(f.progress, f.resets, -row.started_at, row.player, named)
            rec = Rec(row, key, True)
            self._put(rec)
            g0, g1, neg_s = rec.key[0], rec.key[1], rec.key[2]
            self._watch_running(g0, g1, -neg_s, now)
            if (
                old is None
                or not old.running
                or old.row.started_at != row.started_at
                or old.row.deadline != row.deadline
            ):
                heapq.heappush(self._caps, (row.deadline, row.started_at, row.player))
                if len(self._caps) > 2 * len(self._running) + 1024:
                    self._rebuild_caps()
        else:
            t = row.time_at(now)
            rec = Rec(row, order_key(f.progress, f.resets, t, row.player, named), False)
            self._put(rec)
            self._watch_fixed(rec.key[0], rec.key[1], t, now)
        return rec

    def _remove(self, rec: Rec) -> None:
        """Take a row out and watch the pair its leaving makes adjacent."""
        g0, g1, x = rec.key[0], rec.key[1], rec.key[2]
        self._take(rec)
        if rec.running:
            s = self._next_running(g0, g1, -x)  # the nearest running row behind it
            if s is not None:
                self._watch_running(g0, g1, s, self._now)
        else:
            t = self._next_fixed(g0, g1, x)  # the nearest fixed row after it
            if t is not None:
                self._watch_fixed(g0, g1, t, self._now)

    def _capped(self, cap: Cap) -> Rec | None:
        """The running row a deadline entry still stands for, if any."""
        deadline, started, player = cap
        rec = self._recs.get(player)
        if rec is None or not rec.running:
            return None
        if rec.row.started_at != started or rec.row.deadline != deadline:
            return None
        return rec

    def _cap(self, rec: Rec, at: int, repair: bool) -> None:
        """A running row reaching its deadline at `at` becomes fixed (same place)."""
        row = rec.row
        g0, g1 = rec.key[0], rec.key[1]
        self._take(rec)
        t, f = row.deadline - row.started_at, row.figures
        self._put(Rec(row, order_key(f.progress, f.resets, t, row.player, rec.key[3:]), False))
        if repair:
            s = self._next_running(g0, g1, row.started_at)
            if s is not None:
                self._watch_running(g0, g1, s, at)
            self._watch_fixed(g0, g1, t, at)

    def _settle(self, now: int) -> None:
        """After too many events in one step: play the deadlines up to `now`, rebuild."""
        while self._caps and self._caps[0][0] <= now:
            cap = heapq.heappop(self._caps)
            rec = self._capped(cap)
            if rec is not None:
                self._cap(rec, cap[0], repair=False)
        self._now = now
        self._rebuild_events()

    def _rewind(self, now: int) -> bool:
        """The clock went back: rebuild everything at `now` and compare tables."""
        before = self._shape()
        rows = [rec.row for rec in self._recs.values()]
        self._now = now
        self._fixed.clear()
        self._running.clear()
        self._recs.clear()
        self._times.clear()
        self._starts.clear()
        self._events, self._pending, self._caps = [], set(), []
        for row in rows:
            self._add(row, None)
        self._rebuild_events()
        changed = self._shape() != before
        if changed:
            self._version += 1
        return changed

    def _rebuild_events(self) -> None:
        self._events, self._pending = [], set()
        for rec in self._running:
            self._watch_running(rec.key[0], rec.key[1], -rec.key[2], self._now)

    def _rebuild_caps(self) -> None:
        self._caps = [(r.row.deadline, r.row.started_at, r.row.player) for r in self._running]
        heapq.heapify(self._caps)

    def _shape(self) -> list[tuple[int, str, Visible]]:
        return [(s.rank, s.player, visible(self._recs[s.player].row)) for s in self.rows()]

    # -- events --------------------------------------------------------------
    def _pair(self, g0: int, g1: int, s: int, t: int, at: int) -> None:
        """Watch running row `s` against fixed row `t` of a group, as of time `at`."""
        meet = s + t
        if meet > at:
            event = (meet, TIE, g0, g1, s, t)
        elif meet == at:
            event = (at + 1, PASS, g0, g1, s, t)
        else:
            return
        if event not in self._pending:
            self._pending.add(event)
            heapq.heappush(self._events, event)

    def _watch_running(self, g0: int, g1: int, s: int, at: int) -> None:
        """Running `s` against the first fixed row at or after it."""
        t = self._next_fixed(g0, g1, at - s)
        if t is not None:
            self._pair(g0, g1, s, t, at)

    def _watch_fixed(self, g0: int, g1: int, t: int, at: int) -> None:
        """Fixed `t` against the last running row at or before it."""
        s = self._next_running(g0, g1, at - t)
        if s is not None:
            self._pair(g0, g1, s, t, at)

    def _put(self, rec: Rec) -> None:
        k = rec.key
        self._recs[rec.row.player] = rec
        if rec.running:
            self._running.add(rec)
            insort(self._starts.setdefault((k[0], k[1]), []), -k[2])
        else:
            self._fixed.add(rec)
            insort(self._times.setdefault((k[0], k[1]), []), k[2])

    def _take(self, rec: Rec) -> None:
        k = rec.key
        del self._recs[rec.row.player]
        group = (k[0], k[1])
        if rec.running:
            self._running.remove(rec)
            values, v, table = self._starts[group], -k[2], self._starts
        else:
            self._fixed.remove(rec)
            values, v, table = self._times[group], k[2], self._times
        del values[bisect_left(values, v)]
        if not values:
            del table[group]

    def _next_fixed(self, g0: int, g1: int, t: int) -> int | None:
        """The least fixed time >= t in the group."""
        times = self._times.get((g0, g1))
        if times is None:
            return None
        i = bisect_left(times, t)
        return times[i] if i < len(times) else None

    def _next_running(self, g0: int, g1: int, s: int) -> int | None:
        """The least running started_at >= s in the group (the latest time <= now - s)."""
        starts = self._starts.get((g0, g1))
        if starts is None:
            return None
        i = bisect_left(starts, s)
        return starts[i] if i < len(starts) else None

    def _has_fixed(self, g0: int, g1: int, t: int) -> bool:
        return self._next_fixed(g0, g1, t) == t

    def _has_running(self, g0: int, g1: int, s: int) -> bool:
        return self._next_running(g0, g1, s) == s
