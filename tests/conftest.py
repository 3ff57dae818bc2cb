"""Shared fixtures: the project's own copy of the contract's vectors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

DATA = Path(__file__).parent / "data"


def load_vector(name: str) -> Any:
    return json.loads((DATA / name).read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def drbg_vectors() -> dict[str, Any]:
    return load_vector("drbg-v1.json")


@pytest.fixture(scope="session")
def gaps_game_1() -> dict[str, Any]:
    return load_vector("gaps-game-1.json")
