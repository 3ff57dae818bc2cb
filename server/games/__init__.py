"""Pure, sans-I/O game rules: no clock, no socket, no database."""

from __future__ import annotations

from typing import Any

from server.games.base import GameRules
from server.games.gaps import GAPS
from server.games.klondike import KLONDIKE

RULES: dict[str, GameRules[Any, Any]] = {GAPS.name: GAPS, KLONDIKE.name: KLONDIKE}

__all__ = ["RULES", "GameRules"]
