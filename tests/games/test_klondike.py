"""Klondike's rules object (server/games/klondike.py): the deal and the options. The
rules of play are tested in test_klondike_state.py, what the player is shown in
test_klondike_view.py, the actions' wire forms in test_klondike_actions.py."""

from __future__ import annotations

import pytest

from server.games import cards
from server.games.klondike import KLONDIKE, KlondikeOptions, deal


# -- deal --------------------------------------------------------------------
def test_deal_vectors(drbg_vectors) -> None:
    for case in drbg_vectors["cases"]:
        seed = bytes.fromhex(case["seed"])
        for attempt in (0, 1):
            cols, stock = deal(seed, attempt)
            assert [[cards.code(c) for c in d + u] for d, u in cols] == case[
                f"klondike_attempt{attempt}_tableau_bottom_to_top"
            ]
            assert [cards.code(c) for c in reversed(stock)] == case[
                f"klondike_attempt{attempt}_stock_top_first"
            ]
            assert all(len(u) == 1 and len(d) == i for i, (d, u) in enumerate(cols))


def test_options() -> None:
    assert KLONDIKE.parse_options({}) == KlondikeOptions(
        draw=1, passes=None, guaranteed=False, hints=False
    )
    for bad in ({"draw": 2}, {"passes": 0}, {"passes": 100}, {"x": 1}):
        with pytest.raises(ValueError):
            KLONDIKE.parse_options(bad)
