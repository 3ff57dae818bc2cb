"""Both redeal rules (RULES-GAPS.md "Redeal variant (v1.3)"), the options that choose
them, deal attempts (`gaps/deal/a`), and the project's vectors
(tests/data/gaps-redeal-rules-v1.json) against an independent re-implementation written
here from RNG.md and RULES-GAPS.md alone (it imports nothing from server/)."""

from __future__ import annotations

import hashlib
import hmac
import json
from pathlib import Path
from typing import Any

import pytest

from server.games.base import IllegalAction
from server.games.gaps import (
    GAP,
    GAPS,
    GapsRedeal,
    GapsState,
    deal_grid,
    format_grid,
    parse_grid,
    redeal_grid,
)
from tests.games import make_gaps_redeal_vectors

VECTORS = Path(__file__).resolve().parents[1] / "data" / "gaps-redeal-rules-v1.json"
RANKS, SUITS = "A23456789TJQK", "CDHS"


# -- the independent re-implementation -------------------------------------------------
def _shuffle(seed: bytes, label: str, items: list[str]) -> list[str]:
    """RNG.md: HMAC-SHA256 blocks, 4-byte rejection sampling, Fisher-Yates from the end."""
    words: list[int] = []
    block = 0

    def u32() -> int:
        nonlocal block
        if not words:
            msg = label.encode() + b"\x00" + block.to_bytes(8, "big")
            digest = hmac.new(seed, msg, hashlib.sha256).digest()
            words.extend(int.from_bytes(digest[i : i + 4], "big") for i in range(28, -1, -4))
            block += 1
        return words.pop()

    out = list(items)
    for i in range(len(out) - 1, 0, -1):
        n = i + 1
        limit = 2**32 - 2**32 % n
        while (x := u32()) >= limit:
            pass
        j = x % n
        out[i], out[j] = out[j], out[i]
    return out


DECK = [r + s for s in SUITS for r in RANKS]


def _run(row: list[str]) -> int:
    if row[0] == "--" or row[0][0] != "2":
        return 0
    n = 1
    while n < 12 and row[n] == RANKS[n + 1] + row[0][1]:
        n += 1
    return n


def _redeal(rows: list[list[str]], seed: bytes, player: int, k: int, rule: str) -> list[list[str]]:
    runs = [_run(r) if rule == "keep_runs" else 0 for r in rows]
    gathered = [c for r, row in zip(runs, rows, strict=True) for c in row[r:] if c != "--"]
    deck = iter(_shuffle(seed, f"gaps/redeal/{player}/{k}", sorted(gathered, key=DECK.index)))
    return [
        [row[c] if c < n else "--" if c == n else next(deck) for c in range(13)]
        for n, row in zip(runs, rows, strict=True)
    ]


def _replay(case: dict[str, Any]) -> list[list[list[str]]]:
    """Every layout after each deal, replaying the case's actions by hand."""
    seed = bytes.fromhex(case["seed"])
    deck = _shuffle(seed, "gaps/deal", DECK)
    rows = [["--" if c[0] == "A" else c for c in deck[r * 13 : r * 13 + 13]] for r in range(4)]
    layouts = [rows]
    k = 0
    for a in case["actions"]:
        if a["kind"] == "redeal":
            k += 1
            rows = _redeal(rows, seed, case["player_id"], k, case["options"]["redeal"])
            layouts.append(rows)
            continue
        (src,) = [(r, c) for r in range(4) for c in range(13) if rows[r][c] == a["card"]]
        rows = [list(r) for r in rows]
        rows[a["to"][0]][a["to"][1]], rows[src[0]][src[1]] = a["card"], "--"
    return layouts


# -- the vectors ---------------------------------------------------------------------
def _cases() -> list[dict[str, Any]]:
    cases: list[dict[str, Any]] = json.loads(VECTORS.read_text())["cases"]
    return cases


def test_vectors_cover_both_rules_several_seeds_players_and_redeals() -> None:
    cases = _cases()
    assert {c["options"]["redeal"] for c in cases} == {"keep_runs", "reshuffle_all"}
    assert len({c["seed"] for c in cases}) >= 3 and len({c["player_id"] for c in cases}) >= 2
    assert all(len(c["layouts_after_each_deal"]) == 4 for c in cases)  # the deal + 3 redeals


def test_vectors_are_what_the_engine_makes() -> None:
    assert make_gaps_redeal_vectors.vectors()["cases"] == _cases()


@pytest.mark.parametrize("index", range(12))
def test_independent_replay_gives_every_layout(index: int) -> None:
    case = _cases()[index]
    layouts = [[" ".join(r) for r in rows] for rows in _replay(case)]
    assert layouts == case["layouts_after_each_deal"]


def test_engine_replays_each_case_to_its_end() -> None:
    for case in _cases():
        seed = bytes.fromhex(case["seed"])
        options = GAPS.parse_options(case["options"])
        state = GAPS.replay(seed, options, case["actions"], player_id=case["player_id"])
        assert format_grid(state.grid) == case["final_layout"]
        assert (state.status.value, state.progress, state.resets) == (
            case["status"],
            case["cards_in_place"],
            case["redeals_used"],
        )


# -- the rules -----------------------------------------------------------------------
BLOCKED = [
    "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC --",
    "2D 4D 3D 5D 6D 7D 8D 9D TD JD QD KD --",
    "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH --",
    "2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS --",
]


def test_reshuffle_all_keeps_nothing_and_every_gap_is_in_column_zero() -> None:
    seed = bytes(32)
    grid = redeal_grid(parse_grid(BLOCKED), seed, 5, 1, "reshuffle_all")
    rows = format_grid(grid)
    assert all(r.startswith("-- ") and "--" not in r[3:] for r in rows)
    assert sorted(c for c in grid if c != GAP) == sorted(c for c in range(52) if c % 13)
    expected = _redeal([r.split() for r in BLOCKED], seed, 5, 1, "reshuffle_all")
    assert rows == [" ".join(r) for r in expected]
    # keep_runs on the same layout keeps rows 0, 2, 3 whole and 2D of row 1
    kept = format_grid(redeal_grid(parse_grid(BLOCKED), seed, 5, 1))
    assert kept[0] == BLOCKED[0] and kept[1].startswith("2D --")


def test_a_reshuffle_all_redeal_through_the_engine_and_its_progress() -> None:
    s = GapsState(
        seed=bytes(32), player_id=5, redeals=1, grid=parse_grid(BLOCKED), rule="reshuffle_all"
    )
    assert s.progress == 37
    after, events = s.apply(GapsRedeal())
    assert events[0] == {"type": "redealt", "redeal": 1}
    assert after.progress == 0 and after.resets == 1 and after.rule == "reshuffle_all"
    assert all(after.grid[r * 13] == GAP for r in range(4))
    with pytest.raises(IllegalAction):
        after.apply(GapsRedeal())


def test_options_parse_both_rules_and_winnable() -> None:
    assert GAPS.parse_options({}).redeal == "keep_runs"
    assert not GAPS.parse_options({}).winnable
    opts = GAPS.parse_options({"redeal": "reshuffle_all", "winnable": True, "redeals": 1})
    assert (opts.redeal, opts.winnable, opts.redeals) == ("reshuffle_all", True, 1)
    state = GAPS.new_game(bytes(32), opts, player_id=3)
    assert state.rule == "reshuffle_all"


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"redeal": "shuffle"}, "redeal: Input should be 'keep_runs' or 'reshuffle_all'"),
        ({"redeal": 1}, "redeal: Input should be 'keep_runs' or 'reshuffle_all'"),
        ({"winnable": "yes"}, "winnable: Input should be a valid boolean"),
        ({"winnable": 1}, "winnable: Input should be a valid boolean"),
        (
            {"redeal_rule": "keep_runs"},
            "redeal_rule: not a gaps option; allowed: variant, redeals, redeal, winnable",
        ),
    ],
)
def test_bad_options_get_a_clear_error(options: dict[str, Any], words: str) -> None:
    with pytest.raises(ValueError) as info:
        GAPS.parse_options(options)
    assert str(info.value) == f"bad gaps options: {words}"


def test_deal_attempts_use_their_own_label() -> None:
    seed = bytes.fromhex(make_gaps_redeal_vectors.SEEDS[1])
    assert deal_grid(seed, 0) == deal_grid(seed)
    for attempt in (1, 7):
        deck = _shuffle(seed, f"gaps/deal/{attempt}", DECK)
        rows = [
            " ".join("--" if c[0] == "A" else c for c in deck[r * 13 : r * 13 + 13])
            for r in range(4)
        ]
        assert format_grid(deal_grid(seed, attempt)) == rows
        state = GAPS.new_game(seed, GAPS.parse_options({}), player_id=1, deal_attempt=attempt)
        assert format_grid(state.grid) == rows
    assert deal_grid(seed, 1) != deal_grid(seed, 0)
