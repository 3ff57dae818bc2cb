"""Replay throughput of the game engines and the time to verify a 1,000-record bundle.

    .venv/bin/python -m bench.engine [--runs 7] [--no-write]

Games are random legal games from fixed seeds (server.games.random_play), so
every run replays the same actions. Figures are medians over --runs runs on one
core (one process). A side-by-side line times a status check done on the
`Status` StrEnum member against the same check on a plain str.
"""

from __future__ import annotations

import argparse
import random
import time
import timeit
from typing import Any

from bench.report import median, write_section
from server import rng
from server.audit import receipts, records
from server.audit.verify import verify_document
from server.domain import timing
from server.domain.model import Figures, canonical_json
from server.domain.ranking import Result, standings
from server.games import RULES, random_play
from server.games.base import Status
from server.games.gaps import GAPS, GapsOptions
from server.games.klondike import KLONDIKE, KlondikeOptions


def gaps_games(n: int, moves: int) -> list[tuple[bytes, int, list[dict[str, Any]]]]:
    rnd = random.Random(2026)
    games = []
    for i in range(n):
        seed = rnd.randbytes(32)
        actions = random_play.random_actions(
            GAPS, seed, rnd, GapsOptions(redeals=2), player_id=i + 1, limit=moves
        )
        games.append((seed, i + 1, actions))
    return games


def klondike_games(n: int, moves: int) -> list[tuple[bytes, int, list[dict[str, Any]]]]:
    rnd = random.Random(2027)
    games = []
    for i in range(n):
        seed = rnd.randbytes(32)
        opts = KlondikeOptions(draw=1)
        actions = random_play.random_actions(KLONDIKE, seed, rnd, opts, player_id=1, limit=moves)
        games.append((seed, i + 1, actions))
    return games


def status_compare_ns(number: int = 1_000_000) -> dict[str, float]:
    """ns per status check, best of 5, side by side: a Status member checked by identity
    (through the class attribute, and through a name bound to the member once, as the
    engines do), by equality with its text, and a plain str against a str."""
    cases = {
        "member is Status.PLAYING": "m is Status.PLAYING",
        "member is PLAYING (bound name)": "m is PLAYING",
        "member == 'playing' (StrEnum vs str)": "m == 'playing'",
        "str == 'playing' (plain str)": "t == 'playing'",
        "member.value (the text)": "m.value",
    }
    scope = {"m": Status.PLAYING, "t": "playing", "Status": Status, "PLAYING": Status.PLAYING}
    return {
        name: min(timeit.repeat(stmt, globals=scope, number=number, repeat=5)) / number * 1e9
        for name, stmt in cases.items()
    }


def receipt_rate(games: list[tuple[bytes, int, list[dict[str, Any]]]]) -> float:
    """Receipts per second: one samedeal-log/1 step per action (what the server adds to
    every accepted action), from the action's canonical text as the server has it."""
    texts = [[canonical_json(a) for a in acts] for _, _, acts in games]
    start = time.perf_counter()
    n = 0
    for chain in texts:
        head = receipts.genesis("ab" * 32, 7)
        for seq, text in enumerate(chain, 1):
            head = receipts.step(head, seq, seq * 700, text)
        n += len(chain)
    return n / (time.perf_counter() - start)


def replay_rate(rules: Any, games: list[tuple[bytes, int, list[Any]]], options: Any) -> float:
    """Actions per second applying every game's actions from its deal."""
    count = sum(len(a) for _, _, a in games)
    t0 = time.perf_counter()
    for seed, pid, actions in games:
        state = rules.new_game(seed, options, player_id=pid)
        for action in actions:
            state, _ = state.apply(action)
    return count / (time.perf_counter() - t0)


def replay_raw_rate(rules: Any, games: list[tuple[bytes, int, list[Any]]], options: Any) -> float:
    """Actions per second including parsing each JSON action with the rules' parser."""
    count = sum(len(a) for _, _, a in games)
    t0 = time.perf_counter()
    for seed, pid, actions in games:
        rules.replay(seed, options, actions, player_id=pid)
    return count / (time.perf_counter() - t0)


def gaps_bundle(n_records: int, moves: int = 100) -> dict[str, Any]:
    """A correct bundle of random Gaps games (one per player, `moves` actions at most, 500 ms
    apart), each result what its replay gives: timed out at the limit when still on."""
    seed = random.Random(7).randbytes(32)
    options = GapsOptions(redeals=2)
    closed_at = "2026-11-30T19:00:00.000Z"
    t = {
        "id": 7,
        "name": "Friday Gaps",
        "game": "gaps",
        "options": options.model_dump(),
        "commitment": rng.commitment(seed),
        "seed": seed.hex(),
        "starts_at": "2026-11-30T18:00:00.000Z",
        "ends_at": closed_at,
        "time_limit_s": 900,
        "deal_attempt": 0,
        "solution": None,
        "closed_at": closed_at,
    }
    started_at = "2026-11-30T18:02:11.250Z"
    start = timing.parse_iso(started_at)
    limit_ms = timing.ms_between(start, timing.deadline(start, 900, timing.parse_iso(closed_at)))
    recs = []
    for pid in range(1, n_records + 1):
        raw = random_play.random_actions(
            GAPS, seed, random.Random(pid), options, player_id=pid, limit=moves
        )
        end = GAPS.replay(seed, options, raw, player_id=pid)
        actions = [{"seq": i, "at_ms": i * 500, "action": a} for i, a in enumerate(raw, start=1)]
        if end.status is Status.PLAYING:
            status, time_ms = Status.TIMED_OUT, limit_ms
        else:
            status, time_ms = end.status, actions[-1]["at_ms"] if actions else 0
        figures = Figures(status, end.progress, end.resets, end.score, time_ms)
        result = records.result_of(figures)
        player = {"id": pid, "name": f"p{pid}"}
        recs.append(records.record_of(dict(t), player, started_at, actions, result))
    rows = standings(
        Result(r["player"]["name"], records.RecordResult.model_validate(r["result"]).figures)
        for r in recs
    )
    return records.bundle_of(t, recs, [row.as_dict() for row in rows])


def verify_bundle_seconds(n_records: int) -> float:
    doc = gaps_bundle(n_records)
    t0 = time.perf_counter()
    report = verify_document(doc)
    elapsed = time.perf_counter() - t0
    assert report.ok, report.error
    return elapsed


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    gaps = RULES["gaps"]
    options = gaps.parse_options({"redeals": 2})
    raw = gaps_games(400, 200)
    parsed = [(s, p, [gaps.parse_action(a) for a in acts]) for s, p, acts in raw]
    n_actions = sum(len(a) for _, _, a in raw)
    typed = [replay_rate(gaps, parsed, options) for _ in range(args.runs)]
    from_json = [replay_raw_rate(gaps, raw, options) for _ in range(args.runs)]
    klondike = RULES["klondike"]
    k_options = klondike.parse_options({"draw": 1})
    k_raw = klondike_games(100, 150)
    k_parsed = [(s, p, [klondike.parse_action(a) for a in acts]) for s, p, acts in k_raw]
    k_actions = sum(len(a) for _, _, a in k_raw)
    k_typed = [replay_rate(klondike, k_parsed, k_options) for _ in range(args.runs)]
    k_json = [replay_raw_rate(klondike, k_raw, k_options) for _ in range(args.runs)]
    chained = [receipt_rate(raw) for _ in range(args.runs)]
    verify = [verify_bundle_seconds(1000) for _ in range(max(3, args.runs // 2))]
    compare = status_compare_ns()
    lines = [
        "| figure | median | runs |",
        "|---|---|---|",
        f"| Gaps replay, typed actions ({n_actions} actions, 400 games) "
        f"| {median(typed):,.0f} actions/s | {args.runs} |",
        f"| Gaps replay, parsing each JSON action first | {median(from_json):,.0f} actions/s "
        f"| {args.runs} |",
        f"| Klondike replay, typed actions ({k_actions} actions, 100 games) "
        f"| {median(k_typed):,.0f} actions/s | {args.runs} |",
        f"| Klondike replay, parsing each JSON action first | {median(k_json):,.0f} actions/s "
        f"| {args.runs} |",
        f"| receipts: one log-hash step per action ({n_actions} actions) "
        f"| {median(chained):,.0f} steps/s ({1e6 / median(chained):.2f} µs each; a Gaps "
        f"apply is {1e6 / median(typed):.2f} µs) | {args.runs} |",
        f"| verify a 1,000-record Gaps bundle (~100 actions each) | {median(verify):.2f} s "
        f"| {len(verify)} |",
        *(
            f"| status check, {name} (side by side) | {ns:.1f} ns | best of 5 |"
            for name, ns in compare.items()
        ),
    ]
    body = "\n".join(lines)
    print(body)
    if not args.no_write:
        write_section("engine", "python -m bench.engine", body)


if __name__ == "__main__":
    main()
