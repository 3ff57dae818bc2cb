"""A leaderboard's rows in order, and every read of them: windows, pages, ranks, the
merge of its two sorted lists at `now`. Pure.

`SortedRows` owns the state every read looks at: the clock (`now`), the two sorted
lists (fixed rows, running rows: leaderboard.py's module docstring says why two), each
player's row, the version and the shared first rows. It changes none of it:
`Leaderboard` (leaderboard.py), its one subclass, is the writing half (upserts and the
clock's events) and the only other code that touches these fields."""

from __future__ import annotations

from typing import Any, cast

from sortedcontainers import SortedKeyList

from server.competition.standings.rows import EntryRow, Rec, key_of
from server.domain.ranking import OrderKey, Standing


class SortedRows:
    """The rows of one tournament's standings in rank order, read at `now`."""

    def __init__(self, now: int) -> None:
        self._now = now
        self._fixed: Any = SortedKeyList(key=key_of)  # finished or capped: on their time
        self._running: Any = SortedKeyList(key=key_of)  # running: on -started_at
        self._recs: dict[str, Rec] = {}  # player -> its row
        self._version = 0
        self._epoch = 0  # grows with every change at all (a tick, any upsert)
        self._head: tuple[int, list[Standing]] = (-1, [])  # (epoch, the first rows)

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

    # -- positions -----------------------------------------------------------
    def _tkey(self, rec: Rec) -> OrderKey:
        """The row's order key at now (its time so far when running)."""
        k = rec.key
        return (k[0], k[1], k[2] + self._now, k[3], k[4]) if rec.running else k

    def _before(self, r: Rec, f: Rec) -> bool:
        """Whether running row r comes before fixed row f now."""
        k = r.key
        return (k[0], k[1], k[2] + self._now, k[3], k[4]) < f.key

    def _rank(self, tkey: tuple[Any, ...]) -> int:
        """One plus the number of rows whose rank key is less than tkey's."""
        g0, g1, t = tkey[0], tkey[1], tkey[2]
        less_fixed = self._fixed.bisect_key_left((g0, g1, t))
        less_running = self._running.bisect_key_left((g0, g1, t - self._now))
        return 1 + cast(int, less_fixed) + cast(int, less_running)

    def _place(self, rec: Rec) -> tuple[int, int]:
        """The number of rows ranked above a row and of rows sharing its rank."""
        k = self._tkey(rec)
        rank = self._rank(k)
        return rank, self._rank((k[0], k[1], k[2] + 1)) - rank

    def _split(self, rec: Rec) -> tuple[int, int]:
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

    def _near(self, a: int, b: int, around: int) -> tuple[list[Rec], Rec | None]:
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

    def _merge(self, a: int, b: int, n: int) -> list[Rec]:
        """n rows in order from split (a, b) (fewer at the end)."""
        return self._merged(self._fixed[a : a + n], self._running[b : b + n], n)

    def _merged(self, fs: list[Rec], rs: list[Rec], n: int) -> list[Rec]:
        """The first n of fixed rows `fs` and running rows `rs` (each in order) merged."""
        if not rs:
            return fs[:n]
        if not fs:
            return rs[:n]
        now = self._now
        rkeys = [(k[0], k[1], k[2] + now, k[3], k[4]) for k in (r.key for r in rs)]
        out: list[Rec] = []
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

    def _standings(self, offset: int, recs: list[Rec], before: Rec | None = None) -> list[Standing]:
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
                # Standing.of with the time at now, inlined: the hot path of every read
                row, f = rec.row, rec.row.figures
                made = Standing(
                    rank, row.player, f.status, f.progress, f.resets, t, f.score, row.bot
                )
                rec.out = made
            out.append(made)
        return out
