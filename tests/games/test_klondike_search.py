"""Guaranteed deals: solutions replay to a win, the first proven attempt is used."""

from __future__ import annotations

import random

from server.audit.verify import verify_document
from server.games.base import PreparedDeal, Status
from server.games.klondike import KLONDIKE, KlondikeOptions
from server.games.klondike_search import guaranteed_deal, solve_attempt
from tests.support import factories

SEEDS = [random.Random(i).randbytes(32) for i in range(6)]


def test_found_solutions_win_without_foundation_to_column_moves() -> None:
    opts = KlondikeOptions(draw=1)
    proven = 0
    for seed in SEEDS:
        solution, expanded = solve_attempt(seed, opts, 0)
        assert expanded <= 5000
        if solution is None:
            continue
        proven += 1
        assert not any(a["kind"] == "move" and a["from"][0] == "f" for a in solution)
        end = KLONDIKE.replay(seed, opts, solution, player_id=0)
        assert end.status is Status.WON
    assert proven >= 2


def test_guaranteed_deal_uses_the_first_proven_attempt() -> None:
    opts = KlondikeOptions(draw=1, guaranteed=True)
    seed = SEEDS[0]
    attempt, proven, solution = guaranteed_deal(seed, opts)
    assert proven and solution
    for earlier in range(attempt):
        assert solve_attempt(seed, opts, earlier)[0] is None
    assert KLONDIKE.prepare_deal(seed, opts) == PreparedDeal(attempt, True, solution)
    assert KLONDIKE.prepare_deal(seed, KlondikeOptions()) == PreparedDeal(0, False, None)


def test_no_proof_within_the_attempts_keeps_the_last_attempt_unmarked() -> None:
    opts = KlondikeOptions(draw=1, passes=1, guaranteed=True)
    for seed in SEEDS:  # find a seed whose attempt 0 is not proven
        if solve_attempt(seed, opts, 0)[0] is None:
            assert guaranteed_deal(seed, opts, attempts=1) == PreparedDeal(0, False, None)
            return
    raise AssertionError("every seed proven at draw 1, one pass")


def test_verifier_checks_a_stored_solution() -> None:
    opts = {"draw": 1, "passes": None, "guaranteed": True, "hints": False}
    seed = SEEDS[0]
    attempt, _, solution = guaranteed_deal(seed, KlondikeOptions(**opts))
    t = factories.tournament(seed, game="klondike", options=opts)
    t["deal_attempt"], t["solution"] = attempt, solution
    rec = factories.record(t, 1, "kim", solution)  # replaying the proof wins
    report = verify_document(rec)
    assert report.ok, report.error and rec["result"]["status"] == "won"
    assert any("stored solution" in line for line in report.checked)
    bad = dict(rec, tournament=dict(t, solution=solution[:-1]))
    assert "does not win" in verify_document(bad).error
    wrong = dict(rec, tournament=dict(t, deal_attempt=attempt + 1))
    assert not verify_document(wrong).ok
