"""The verifier on bundles of each Gaps family variant (RULES-GAPS.md "Family variants"):
records carry `variant` in their options, every record and par line is replayed under the
variant's rules, and a bundle changed anywhere the variant matters is a difference."""

from __future__ import annotations

import copy
import random
from collections.abc import Callable
from typing import Any

import pytest

from server.audit.verify import verify_document
from server.games.base import action_data
from server.games.gaps import GAPS, GapsState
from server.games.gaps_par import par_for
from server.games.gaps_search import SearchLimits
from server.games.random_play import random_gaps_game
from tests.support import factories

SEED = bytes.fromhex("e4c537b6139465e60d1e3dc91d26a884e7b04b4d57558cedeb4b13dff5d68d97")
SMALL = SearchLimits(total=8_000, first=2_000, later=1_000, breadth=3)
VARIANTS = ("montana", "addiction", "free_parking")


def _right_neighbour_moves(seed: bytes, options: Any, pid: int, line: list[Any]) -> int:
    """How many moves of `line` only free_parking allows (the card below the right one)."""
    state = GAPS.new_game(seed, options, player_id=pid)
    count = 0
    for raw in line:
        if raw["kind"] == "move":
            cell = raw["to"][0] * 13 + raw["to"][1]
            plain = GapsState(seed=seed, player_id=pid, redeals=0, grid=state.grid)
            count += cell % 13 != 0 and all(g != cell for _, g in plain.legal_moves())
        state, _ = state.apply(GAPS.parse_action(raw))
    return count


def _bundle(variant: str) -> dict[str, Any]:
    options = GAPS.parse_options({"variant": variant})
    t = factories.tournament(SEED, options=options.model_dump())
    records = []
    for pid in (1, 2, 3):
        game = random_gaps_game(SEED, random.Random(pid), options, player_id=pid, limit=150 * pid)
        actions = [action_data(a) for _, a in game if a]
        record = factories.record(t, pid, f"p{pid}", actions)
        record["par"] = par_for(SEED, options, pid, actions, SMALL).as_dict()
        records.append(record)
    return factories.bundle(t, records)


def _options_everywhere(b: dict[str, Any], edit: Callable[[dict[str, Any]], None]) -> None:
    """Change the options in the bundle's tournament and every record's copy alike."""
    for t in (b["tournament"], *(r["tournament"] for r in b["records"])):
        edit(t["options"])


def _as(variant: str | None) -> Callable[[dict[str, Any]], None]:
    def edit(b: dict[str, Any]) -> None:
        def to(options: dict[str, Any]) -> None:
            options.pop("variant")
            if variant is not None:
                options["variant"] = variant

        _options_everywhere(b, to)

    return edit


def _longest(b: dict[str, Any]) -> dict[str, Any]:
    record: dict[str, Any] = max(b["records"], key=lambda r: len(r["actions"]))
    return record


TAMPER: dict[str, Callable[[dict[str, Any]], None]] = {
    "variant dropped (plain gaps)": _as(None),
    "another variant": _as("free_parking"),
    "par progress": lambda b: _longest(b)["par"].update(
        progress=_longest(b)["par"]["progress"] + 1
    ),
    "result progress": lambda b: _longest(b)["result"].update(
        progress=_longest(b)["result"]["progress"] + 1
    ),
}


@pytest.fixture(scope="module")
def bundles() -> dict[str, dict[str, Any]]:
    return {v: _bundle(v) for v in VARIANTS}


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_variant_bundle_verifies_with_every_record_and_par_line(
    bundles: dict[str, dict[str, Any]], variant: str
) -> None:
    doc = bundles[variant]
    assert doc["tournament"]["options"]["variant"] == variant
    assert all(r["tournament"]["options"]["variant"] == variant for r in doc["records"])
    report = verify_document(doc)
    assert report.ok, report.error
    assert sum("par line (" in line for line in report.checked) == 3
    record = verify_document(doc["records"][1])
    assert record.ok, record.error


def test_the_free_parking_bundle_holds_moves_only_its_rule_allows(
    bundles: dict[str, dict[str, Any]],
) -> None:
    options = GAPS.parse_options({"variant": "free_parking"})
    doc = bundles["free_parking"]
    special = sum(
        _right_neighbour_moves(
            SEED, options, r["player"]["id"], [a["action"] for a in r["actions"]]
        )
        for r in doc["records"]
    )
    assert special > 0


@pytest.mark.parametrize("change", sorted(TAMPER))
@pytest.mark.parametrize("variant", VARIANTS)
def test_every_tampered_variant_bundle_is_a_difference(
    bundles: dict[str, dict[str, Any]], variant: str, change: str
) -> None:
    if change == "another variant" and variant == "free_parking":
        change_to: Callable[[dict[str, Any]], None] = _as("montana")
    else:
        change_to = TAMPER[change]
    doc = copy.deepcopy(bundles[variant])
    change_to(doc)
    report = verify_document(doc)
    assert not report.ok, f"{variant}: {change} verified"
    assert report.error and "\n" not in report.error
