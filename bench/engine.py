"""Replay throughput of the game engines and the time to verify a 1,000-record bundle.

    .venv/bin/python -m bench.engine [--runs 7] [--no-write]

Games are random legal games from fixed seeds, so every run replays the same
actions. Figures are medians over --runs runs on one core (one process).
"""

from __future__ import annotations

import argparse
import random
import time
from typing import Any

from bench.report import median, write_section
from server.audit.verify import verify_document
from server.games import RULES
from tests.support import factories


def gaps_games(n: int, moves: int) -> list[tuple[bytes, int, list[dict[str, Any]]]]:
    rnd = random.Random(2026)
    games = []
    for i in range(n):
        seed = rnd.randbytes(32)
        games.append((seed, i + 1, factories.play_gaps(seed, i + 1, moves, rnd, resign=False)))
    return games


def klondike_games(n: int, moves: int) -> list[tuple[bytes, int, list[dict[str, Any]]]]:
    from server.games.klondike import KlondikeOptions
    from tests.support.klondike_play import random_game

    rnd = random.Random(2027)
    games = []
    for i in range(n):
        seed = rnd.randbytes(32)
        opts = KlondikeOptions(draw=1)
        raws = [raw for _, raw in random_game(seed, rnd, opts, moves) if raw is not None]
        games.append((seed, i + 1, raws))
    return games


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


def verify_bundle_seconds(records: int) -> float:
    seed = random.Random(7).randbytes(32)
    t = factories.tournament(seed)
    recs = [
        factories.record(t, pid, f"p{pid}", factories.play_gaps(seed, pid, 100, random.Random(pid)))
        for pid in range(1, records + 1)
    ]
    doc = factories.bundle(t, recs)
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
    verify = [verify_bundle_seconds(1000) for _ in range(max(3, args.runs // 2))]
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
        f"| verify a 1,000-record Gaps bundle (~100 actions each) | {median(verify):.2f} s "
        f"| {len(verify)} |",
    ]
    body = "\n".join(lines)
    print(body)
    if not args.no_write:
        write_section("engine", "python -m bench.engine", body)


if __name__ == "__main__":
    main()
