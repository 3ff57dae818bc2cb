"""The organiser's fair-play report (docs/COMPETITION.md "Fair play"): entries of one
tournament worth a look, each with why and the figures. Pure: it reads games (actions
with their times) and accounts' creation times, and only points; deciding, and
disqualifying, is the organiser's.

Kinds, with the thresholds of `Thresholds` (defaults below):
- `same_opening`: entries whose first `opening_moves` (20) actions are identical. Every
  entrant has the same deal, so twenty identical moves are likely one person playing
  twice, or a line shared during play.
- `fast`: the median think time (the time between an action and the one before it, the
  first counted from the start of the game) under `fast_median_ms` (150 ms) over at least
  `min_moves` (30) actions: faster than people read a layout.
- `even`: think times with a standard deviation under `even_spread` (10%) of their mean
  over at least `min_moves` actions: people's think times vary by about as much as their
  mean; a program's do not.
- `new_account`: an account created less than `new_account_s` (600 s) before its entry.
- `bot`: an entry registered as a bot.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, NamedTuple

from server.audit.receipts import action_text
from server.i18n.said import Said, said


@dataclass(frozen=True)
class Thresholds:
    opening_moves: int = 20
    fast_median_ms: int = 150
    min_moves: int = 30
    even_spread: float = 0.10
    new_account_s: int = 600


THRESHOLDS = Thresholds()


@dataclass(frozen=True)
class Game:
    """One entry as the report reads it."""

    player: str
    bot: bool
    created_at: datetime  # the account
    joined_at: datetime  # the entry
    actions: Sequence[dict[str, Any]] = field(default_factory=list)
    at_ms: Sequence[int] = field(default_factory=list)  # each action's time in the game


class Finding(NamedTuple):
    """One line of the report: its kind, the players, why (with the figures; a `Said`,
    `fairplay.why.<kind>`, English as a str), and the figures themselves."""

    kind: str
    players: tuple[str, ...]
    why: str
    figures: dict[str, Any]

    def as_dict(self) -> dict[str, Any]:
        """The wire's finding: `why` in English and `why_params`, the params a client says
        `fairplay.why.<kind>` with in its language (server/audit/fairplay_lines.py)."""
        return {
            "kind": self.kind,
            "players": list(self.players),
            "why": str(self.why),
            "why_params": dict(self.why.params) if isinstance(self.why, Said) else {},
            "figures": self.figures,
        }

    def line(self) -> str:
        return f"{self.kind:<12} {', '.join(self.players)}: {self.why}"


def think_times(at_ms: Sequence[int]) -> list[int]:
    """The time before each action: from the game's start for the first."""
    before = [0, *at_ms][: len(at_ms)]
    return [b - a for a, b in zip(before, at_ms, strict=True)]


def same_openings(games: Sequence[Game], n: int) -> list[Finding]:
    """Groups of two or more entries whose first `n` actions are identical."""
    groups: dict[tuple[str, ...], list[str]] = {}
    for g in games:
        if len(g.actions) >= n > 0:
            key = tuple(action_text(a) for a in g.actions[:n])
            groups.setdefault(key, []).append(g.player)
    return [
        Finding(
            "same_opening",
            tuple(players),
            said("fairplay.why.same_opening", n=n, entries=len(players)),
            {"moves": n, "entries": len(players)},
        )
        for players in groups.values()
        if len(players) > 1
    ]


def timing_findings(g: Game, t: Thresholds) -> list[Finding]:
    """`fast` and `even` for one entry with at least `min_moves` actions."""
    times = think_times(g.at_ms)
    if len(times) < t.min_moves:
        return []
    out = []
    median = statistics.median(times)
    if median < t.fast_median_ms:
        out.append(
            Finding(
                "fast",
                (g.player,),
                said(
                    "fairplay.why.fast",
                    median=f"{median:g}",
                    moves=len(times),
                    under=t.fast_median_ms,
                ),
                {"median_ms": median, "moves": len(times)},
            )
        )
    mean = statistics.fmean(times)
    spread = statistics.pstdev(times)
    if mean > 0 and spread < t.even_spread * mean:
        out.append(
            Finding(
                "even",
                (g.player,),
                said(
                    "fairplay.why.even",
                    mean=f"{mean:.0f}",
                    stdev=f"{spread:.0f}",
                    percent=f"{100 * spread / mean:.1f}",
                    under=f"{100 * t.even_spread:g}",
                    moves=len(times),
                ),
                {"mean_ms": round(mean, 1), "stdev_ms": round(spread, 1), "moves": len(times)},
            )
        )
    return out


def account_findings(g: Game, t: Thresholds) -> list[Finding]:
    """`bot` and `new_account` for one entry."""
    out = []
    if g.bot:
        out.append(Finding("bot", (g.player,), said("fairplay.why.bot"), {}))
    age = (g.joined_at - g.created_at).total_seconds()
    if 0 <= age < t.new_account_s:
        out.append(
            Finding(
                "new_account",
                (g.player,),
                said(
                    "fairplay.why.new_account",
                    age=_duration(age),
                    under=_duration(t.new_account_s),
                ),
                {"account_age_s": round(age, 3)},
            )
        )
    return out


def findings(games: Sequence[Game], t: Thresholds = THRESHOLDS) -> list[Finding]:
    """Every finding of the tournament: shared openings first, then per entry (in the
    games' order) its timing and its account."""
    out = same_openings(games, t.opening_moves)
    for g in games:
        out += timing_findings(g, t) + account_findings(g, t)
    return out


def _duration(seconds: float) -> str:
    whole = int(seconds)
    if whole < 60:
        return f"{seconds:.1f} s"
    m, s = divmod(whole, 60)
    return f"{m} min {s} s" if s else f"{m} min"
