"""Build real records and bundles by playing the pure engine (no server)."""

from __future__ import annotations

import copy
import random
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

from server import rng
from server.audit.beacon_check import dealing_seed
from server.audit.records import RecordTournament, bundle_of, record_of, result_of
from server.domain.model import Figures, NewTournament, Summary
from server.domain.ranking import Result, standings
from server.games import RULES, random_play
from server.games.base import Status, action_data
from server.games.gaps import GapsMove, GapsOptions, GapsRedeal, GapsState

NOW = datetime(2026, 11, 30, 18, 0, tzinfo=UTC)
STARTS = "2026-11-30T18:00:00.000Z"
ENDS = "2026-11-30T19:00:00.000Z"


def figures(
    status: Status | str = Status.PLAYING,
    progress: int = 0,
    resets: int = 0,
    score: int = 0,
    time_ms: int = 0,
) -> Figures:
    """An entry's figures (a record's `result` object spreads into it: `figures(**r)`)."""
    return Figures(Status(status), progress, resets, score, time_ms)


def tournament(
    seed: bytes,
    game: str = "gaps",
    options: dict[str, Any] | None = None,
    time_limit_s: int | None = 900,
) -> dict[str, Any]:
    return {
        "id": 7,
        "name": "Friday Gaps",
        "game": game,
        "options": options if options is not None else {"redeals": 2},
        "commitment": rng.commitment(seed),
        "seed": seed.hex(),
        "starts_at": STARTS,
        "ends_at": ENDS,
        "time_limit_s": time_limit_s,
        "deal_attempt": 0,
        "solution": None,
        "closed_at": ENDS,
    }


def random_gaps_game(
    seed: bytes, rnd: random.Random, redeals: int = 2, player: int = 7, limit: int = 300
) -> Iterator[tuple[GapsState, GapsMove | GapsRedeal | None]]:
    """Yield every state of a random legal Gaps game (redeal when blocked), with the
    action that led to it (None for the deal)."""
    yield from random_play.random_gaps_game(
        seed, rnd, GapsOptions(redeals=redeals), player_id=player, limit=limit
    )


def play_gaps(
    seed: bytes, player_id: int, moves: int, rnd: random.Random, resign: bool = False
) -> list[dict[str, Any]]:
    """Up to `moves` random legal actions (redeal when blocked), then maybe resign."""
    states = list(random_gaps_game(seed, rnd, player=player_id, limit=moves))
    out = [action_data(action) for _, action in states[1:] if action is not None]
    if resign and states[-1][0].status is Status.PLAYING:
        out.append({"kind": "resign"})
    return out


def record(
    t: dict[str, Any],
    player_id: int,
    name: str,
    raw_actions: list[dict[str, Any]],
    started_at: str = "2026-11-30T18:02:11.250Z",
    step_ms: int = 500,
) -> dict[str, Any]:
    """A correct record: actions step_ms apart, the result the replay gives."""
    rules = RULES[t["game"]]
    s = rules.replay(
        dealing_seed(RecordTournament.model_validate(t)),  # the beacon's deal seed if any
        rules.parse_options(t["options"]),
        raw_actions,
        player_id=player_id,
        deal_attempt=t["deal_attempt"],
    )
    actions = [
        {"seq": i, "at_ms": i * step_ms, "action": a} for i, a in enumerate(raw_actions, start=1)
    ]
    if s.status is Status.PLAYING:
        from server.domain import timing

        start = timing.parse_iso(started_at)
        end = timing.deadline(start, t["time_limit_s"], timing.parse_iso(t["closed_at"]))
        status, time_ms = Status.TIMED_OUT.value, timing.ms_between(start, end)
    else:
        status, time_ms = s.status.value, actions[-1]["at_ms"] if actions else 0
    result = result_of(figures(status, s.progress, s.resets, s.score, time_ms))
    return record_of(copy.deepcopy(t), {"id": player_id, "name": name}, started_at, actions, result)


def bundle(t: dict[str, Any], records: list[dict[str, Any]]) -> dict[str, Any]:
    """A bundle of `records`: its standings from their results (a record with `par`
    gives its row that par's progress and resets, as RECORD.md v1.3 says)."""
    rows = standings(Result(r["player"]["name"], figures(**r["result"])) for r in records)
    pars = {r["player"]["name"]: r.get("par") for r in records}
    return bundle_of(t, records, [_with_par(row.as_dict(), pars[row.player]) for row in rows])


def _with_par(row: dict[str, Any], par: dict[str, Any] | None) -> dict[str, Any]:
    if par is not None:
        row["par"] = {"progress": par["progress"], "resets": par["resets"]}
    return row


def new_tournament(**over) -> NewTournament:
    fields = dict(
        name="Friday Gaps",
        game="gaps",
        options={"redeals": 2},
        commitment="c" * 64,
        seed_hex="5e" * 32,
        starts_at=NOW,
        ends_at=NOW + timedelta(hours=1),
        join_until=NOW + timedelta(hours=1),
        time_limit_s=900,
        status="open",
        deal_attempt=0,
        guaranteed=False,
        solution=None,
        created_at=NOW,
    )
    fields.update(over)
    return NewTournament(**fields)


def playing(seq: int = 0, progress: int = 0) -> Summary:
    return Summary(figures(Status.PLAYING, progress, 0, progress), seq, "")
