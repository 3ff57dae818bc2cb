"""Par of a Gaps entry (COMPETITION.md "Par"): the best result a search finds on the
entry's own deal and redeal stream under its tournament's variant, never worse than the
entry's own line.

`par_for` is pure and synchronous (CPU-heavy: a worker process calls it, never the event
loop). It replays the witness through the engine, runs gaps_search within the limits,
keeps the better of the two (more progress, then fewer resets; a tie keeps the witness),
and replays the line it returns through the engine before returning it, so a par always
reaches exactly what it claims.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from server.games.base import ActionError, action_data
from server.games.gaps import GAPS, GapsOptions, GapsRedeal, GapsState
from server.games.gaps_search import PAR_TIERS, SearchLimits, actions, search_tiers


class Par(NamedTuple):
    """RECORD.md v1.3 `par`: cards in place, redeals used, and the actions reaching them."""

    progress: int
    resets: int
    line: list[dict[str, Any]]

    def as_dict(self) -> dict[str, Any]:
        """The record's `par` object."""
        return {"progress": self.progress, "resets": self.resets, "line": self.line}


def par_for(
    seed: bytes,
    options: GapsOptions | Mapping[str, Any] | None,
    player_id: int,
    witness_line: Sequence[Mapping[str, Any]] = (),
    limits: SearchLimits | Sequence[SearchLimits] = PAR_TIERS,
    *,
    deal_attempt: int = 0,
) -> Par:
    """The par of player `player_id` on the tournament's deal (`seed`, `options`,
    `deal_attempt`), given the entry's own actions as the witness (a trailing resign is
    ignored). `limits`: one budget, or budgets tried in turn until one finds a win
    (default gaps_search.PAR_TIERS). Deterministic given the limits. ValueError when the
    options are bad or the witness is not a legal line of that player."""
    opts = options if isinstance(options, GapsOptions) else GAPS.parse_options(options)
    start = GAPS.new_game(seed, opts, player_id=player_id, deal_attempt=deal_attempt)
    witness = _best_prefix(start, witness_line)
    tiers = (limits,) if isinstance(limits, SearchLimits) else tuple(limits)
    found = search_tiers(start.grid, seed, player_id, opts.redeals, opts.redeal, tiers, opts.rules)
    par = witness
    if (found.progress, -found.resets) > (witness.progress, -witness.resets):
        par = Par(found.progress, found.resets, actions(found.line))
    end = GAPS.replay(seed, opts, par.line, player_id=player_id, deal_attempt=deal_attempt)
    if (end.progress, end.resets) != (par.progress, par.resets):  # a bug, never a player's
        raise AssertionError(f"par line reaches {end.progress}/{end.resets}, not {par[:2]}")
    return par


def _best_prefix(start: GapsState, line: Sequence[Mapping[str, Any]]) -> Par:
    """The shortest prefix of the witness with its best (progress, -resets)."""
    state = start
    best = (state.progress, -state.resets, 0)
    taken: list[dict[str, Any]] = []
    for i, raw in enumerate(line, start=1):
        if raw.get("kind") == "resign":
            break
        try:
            action = GAPS.parse_action(dict(raw))
            nxt, _ = state.apply(action)
        except ActionError as exc:
            raise ValueError(f"witness action {i}: {exc.message}") from None
        if not isinstance(nxt, GapsState):  # pragma: no cover - apply keeps the type
            raise TypeError("not a Gaps state")
        state = nxt
        taken.append(
            action_data(action) if not isinstance(action, GapsRedeal) else {"kind": "redeal"}
        )
        if (state.progress, -state.resets) > best[:2]:
            best = (state.progress, -state.resets, i)
    return Par(best[0], -best[1], taken[: best[2]])
