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
from dataclasses import dataclass
from operator import attrgetter
from typing import Any, cast

from sortedcontainers import SortedKeyList

from server.domain.ranking import OrderKey, Result, Standing, order_key
from server.games.base import Status

PLAYING = Status.PLAYING.value

_TIE, _PASS = 0, 1  # event kinds: two rows meet (tie), then one passes the other
_Event = tuple[int, int, int, int, int, int]  # (at, kind, group0, group1, started_at, time)
_Cap = tuple[int, int, str]  # (deadline, started_at, player)
_Visible = tuple[str, int, int, int, int | None]
_Group = tuple[int, int]  # the first two parts of a rank key


@dataclass(frozen=True, slots=True)
class EntryRow:
    """One entry's figures as the leaderboard takes them; times in ms.

    `time_ms` is the final time of a finished game and is ignored while it is
    playing; `started_at` and `deadline` are epoch milliseconds.
    """

    player: str
    status: str
    progress: int
    resets: int
    score: int
    time_ms: int
    started_at: int
    deadline: int
    bot: bool = False  # v1.3: marked in standings rows

    def time_at(self, now: int) -> int:
        """The time it ranks on at `now`: final, or so far (capped at the deadline)."""
        if self.status == PLAYING:
            return min(now, self.deadline) - self.started_at
        return self.time_ms

    def result(self, now: int) -> Result:
        """Its figures at `now`, as `standings()` takes them."""
        return Result(
            self.player, self.status, self.progress, self.resets, self.time_at(now), self.score
        )


def _visible(row: EntryRow) -> _Visible:
    """What a row shows apart from its rank and its running clock."""
    final = None if row.status == PLAYING else row.time_ms
    return (row.status, row.progress, row.resets, row.score, final)


class _Rec:
    """A row as stored: `key` is its order key, with `-started_at` for the time
    when `running` (its time is then `now + key[2]`); `out` the last Standing
    made of it, reused while its rank and time stay."""

    __slots__ = ("key", "out", "row", "running")

    def __init__(self, row: EntryRow, key: OrderKey, running: bool) -> None:
        self.row = row
        self.key = key
        self.running = running
        self.out: Standing | None = None


_key_of = attrgetter("key")


class Leaderboard:
    """The standings of one tournament, incrementally; see the module docstring."""

    def __init__(self, now: int = 0, *, event_budget: int = 4096) -> None:
        self._now = now
        self._budget = event_budget
        self._fixed: Any = SortedKeyList(key=_key_of)
        self._running: Any = SortedKeyList(key=_key_of)
        self._recs: dict[str, _Rec] = {}
        # per group, sorted with repeats: the times of fixed rows, the starts of running ones
        self._times: dict[_Group, list[int]] = {}
        self._starts: dict[_Group, list[int]] = {}
        self._version = 0
        self._epoch = 0  # grows with every change at all (a tick, any upsert)
        self._head: tuple[int, list[Standing]] = (-1, [])  # (epoch, the first rows)
        self._events: list[_Event] = []
        self._pending: set[_Event] = set()
        self._caps: list[_Cap] = []

    # -- reading -------------------------------------------------------------
    @property
    def now(self) -> int:
        return self._now

    @property
    def version(self) -> int:
        return self._version

    @property
    def total(self) -> int:
        """The number of entrants."""
        return len(self._recs)

    def __len__(self) -> int:
        return len(self._recs)

    def get(self, player: str) -> EntryRow | None:
        """The entry's figures as last upserted."""
        rec = self._recs.get(player)
        return None if rec is None else rec.row

    def rank_of(self, player: str) -> int | None:
        """The player's rank now, or None without an entry."""
        rec = self._recs.get(player)
        return None if rec is None else self._rank(self._tkey(rec))

    def rows(self) -> list[Standing]:
        """The whole table (O(n): for tests, records and small tournaments)."""
        return self._standings(0, self._merge(0, 0, len(self._recs)))

    def page(self, offset: int, limit: int) -> list[Standing]:
        """The rows ranked offset+1 .. offset+limit (fewer at the end, none beyond)."""
        offset = max(offset, 0)
        n = min(limit, len(self._recs) - offset)
        if n <= 0:
            return []
        a, b = self._partition(offset)
        return self._standings(offset, self._merge(a, b, n))

    def window(self, top: int, around: int, player: str | None = None) -> list[Standing]:
        """The first `top` rows plus `around` rows on each side of the player's own
        row (included) when the player has an entry; in rank order, no duplicates."""
        return self.window_and_gap(top, around, player)[0]

    def window_and_gap(
        self, top: int, around: int, player: str | None = None
    ) -> tuple[list[Standing], int | None]:
        """`window`, and where it leaves rows out: after its first `top` rows when the
        rows around the player do not follow them (else None)."""
        top = min(max(top, 0), len(self._recs))
        rec = None if player is None else self._recs.get(player)
        if rec is None:
            return self._top(top), None
        around = max(around, 0)
        a, b = self._split(rec)
        pos = a + b
        lo = max(pos - around, 0)
        hi = min(pos + around + 1, len(self._recs))
        if lo <= top:  # the two parts overlap or touch: one run from the top
            return self._top(max(top, hi)), None
        return self._top(top) + self._standings(lo, *self._near(a, b, around)), top

    def _top(self, n: int) -> list[Standing]:
        """The first n rows, shared by every window until the next change."""
        epoch, head = self._head
        if epoch != self._epoch or len(head) < n:
            head = self._standings(0, self._merge(0, 0, n))
            self._head = (self._epoch, head)
        return head[:n]

    # -- writing -------------------------------------------------------------
    def upsert(self, row: EntryRow) -> bool:
        """Add or replace an entry's figures; whether the standings changed."""
        old = self._recs.get(row.player)
        if old is not None and old.row == row:
            return False
        self._epoch += 1
        same_look = old is not None and _visible(old.row) == _visible(row)
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
                if kind == _TIE:
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
    def _add(self, row: EntryRow, old: _Rec | None) -> _Rec:
        now = self._now
        if row.status == PLAYING and row.deadline > now:
            rec = _Rec(row, order_key(row.progress, row.resets, -row.started_at, row.player), True)
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
            rec = _Rec(row, order_key(row.progress, row.resets, t, row.player), False)
            self._put(rec)
            self._watch_fixed(rec.key[0], rec.key[1], t, now)
        return rec

    def _remove(self, rec: _Rec) -> None:
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

    def _capped(self, cap: _Cap) -> _Rec | None:
        """The running row a deadline entry still stands for, if any."""
        deadline, started, player = cap
        rec = self._recs.get(player)
        if rec is None or not rec.running:
            return None
        if rec.row.started_at != started or rec.row.deadline != deadline:
            return None
        return rec

    def _cap(self, rec: _Rec, at: int, repair: bool) -> None:
        """A running row reaching its deadline at `at` becomes fixed (same place)."""
        row = rec.row
        g0, g1 = rec.key[0], rec.key[1]
        self._take(rec)
        t = row.deadline - row.started_at
        self._put(_Rec(row, order_key(row.progress, row.resets, t, row.player), False))
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

    def _shape(self) -> list[tuple[int, str, _Visible]]:
        return [(s.rank, s.player, _visible(self._recs[s.player].row)) for s in self.rows()]

    # -- events --------------------------------------------------------------
    def _pair(self, g0: int, g1: int, s: int, t: int, at: int) -> None:
        """Watch running row `s` against fixed row `t` of a group, as of time `at`."""
        meet = s + t
        if meet > at:
            event = (meet, _TIE, g0, g1, s, t)
        elif meet == at:
            event = (at + 1, _PASS, g0, g1, s, t)
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

    def _put(self, rec: _Rec) -> None:
        k = rec.key
        self._recs[rec.row.player] = rec
        if rec.running:
            self._running.add(rec)
            insort(self._starts.setdefault((k[0], k[1]), []), -k[2])
        else:
            self._fixed.add(rec)
            insort(self._times.setdefault((k[0], k[1]), []), k[2])

    def _take(self, rec: _Rec) -> None:
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

    # -- positions -----------------------------------------------------------
    def _tkey(self, rec: _Rec) -> OrderKey:
        """The row's order key at now (its time so far when running)."""
        k = rec.key
        return (k[0], k[1], k[2] + self._now, k[3], k[4]) if rec.running else k

    def _before(self, r: _Rec, f: _Rec) -> bool:
        """Whether running row r comes before fixed row f now."""
        k = r.key
        return (k[0], k[1], k[2] + self._now, k[3], k[4]) < f.key

    def _rank(self, tkey: tuple[Any, ...]) -> int:
        """One plus the number of rows whose rank key is less than tkey's."""
        g0, g1, t = tkey[0], tkey[1], tkey[2]
        less_fixed = self._fixed.bisect_key_left((g0, g1, t))
        less_running = self._running.bisect_key_left((g0, g1, t - self._now))
        return 1 + cast(int, less_fixed) + cast(int, less_running)

    def _place(self, rec: _Rec) -> tuple[int, int]:
        """The number of rows ranked above a row and of rows sharing its rank."""
        k = self._tkey(rec)
        rank = self._rank(k)
        return rank, self._rank((k[0], k[1], k[2] + 1)) - rank

    def _split(self, rec: _Rec) -> tuple[int, int]:
        """How many fixed and how many running rows come before this row."""
        k = self._tkey(rec)
        a = self._fixed.bisect_key_left(k)
        b = self._running.bisect_key_left((k[0], k[1], k[2] - self._now, k[3], k[4]))
        return cast(int, a), cast(int, b)

    def _partition(self, i: int) -> tuple[int, int]:
        """(a, b) with a + b = i: the first i rows are a fixed and b running ones."""
        fixed, running = self._fixed, self._running
        lo, hi = max(0, i - len(running)), min(i, len(fixed))
        while lo < hi:  # least a whose fixed row a comes after running row i-a-1
            a = (lo + hi) // 2
            if self._before(running[i - a - 1], fixed[a]):
                hi = a
            else:
                lo = a + 1
        return lo, i - lo

    def _near(self, a: int, b: int, around: int) -> tuple[list[_Rec], _Rec | None]:
        """The rows `around` positions either side of the row at split (a, b), itself
        included, and the row just before them (None at the top): they are among the
        `around` + 1 rows either side of it in each list."""
        fa, fb = max(a - around - 1, 0), max(b - around - 1, 0)
        p = a - fa + b - fb  # the row's index in the two slices merged
        fs = self._fixed[fa : a + around + 1]
        rs = self._running[fb : b + around + 1]
        merged = self._merged(fs, rs, p + around + 1)
        start = max(p - around, 0)
        return merged[start:], merged[start - 1] if start else None

    def _merge(self, a: int, b: int, n: int) -> list[_Rec]:
        """n rows in order from split (a, b) (fewer at the end)."""
        return self._merged(self._fixed[a : a + n], self._running[b : b + n], n)

    def _merged(self, fs: list[_Rec], rs: list[_Rec], n: int) -> list[_Rec]:
        """The first n of fixed rows `fs` and running rows `rs` (each in order) merged."""
        if not rs:
            return fs[:n]
        if not fs:
            return rs[:n]
        now = self._now
        rkeys = [(k[0], k[1], k[2] + now, k[3], k[4]) for k in (r.key for r in rs)]
        out: list[_Rec] = []
        i = j = 0
        nf, nr = len(fs), len(rs)
        while len(out) < n:
            if i < nf and (j == nr or fs[i].key < rkeys[j]):
                out.append(fs[i])
                i += 1
            elif j < nr:
                out.append(rs[j])
                j += 1
            else:
                break
        return out

    def _standings(
        self, offset: int, recs: list[_Rec], before: _Rec | None = None
    ) -> list[Standing]:
        """Rows for recs placed from position `offset` on, with their ranks (`before`:
        the row at offset - 1 when the caller has it, which saves a rank lookup)."""
        out: list[Standing] = []
        now = self._now
        prev: tuple[Any, ...] | None = () if not offset else None
        if before is not None:
            k = before.key
            prev = (k[0], k[1], k[2] + now if before.running else k[2])
        rank = 0
        for i, rec in enumerate(recs):
            k = rec.key
            t = k[2] + now if rec.running else k[2]
            k3 = (k[0], k[1], t)
            if not i and (prev is None or k3 == prev):  # it may share the rank above
                rank = self._rank(k3)
            elif k3 != prev:
                rank = offset + i + 1
            prev = k3
            made = rec.out
            if made is None or made.rank != rank or made.time_ms != t:
                row = rec.row
                made = Standing(
                    rank, row.player, row.status, row.progress, row.resets, t, row.score, row.bot
                )
                rec.out = made
            out.append(made)
        return out
