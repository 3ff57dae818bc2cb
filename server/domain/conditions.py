"""Entry conditions (COMPETITION.md "Series"): who may join a tournament, pure.

`conditions` is a JSON object with any of min_account_age_s, min_rated, min_rating,
max_rating (integers or numbers) and bots (true by default). The check names the first
condition a player fails; the competition reads the facts (account age, rated
tournaments and rating of the game) and refuses the join with `forbidden`.
"""

from __future__ import annotations

from typing import Any, NamedTuple

NUMERIC = ("min_account_age_s", "min_rated", "min_rating", "max_rating")
KNOWN = (*NUMERIC, "bots")


class Facts(NamedTuple):
    """What the conditions look at, for one player and the tournament's game."""

    bot: bool
    account_age_s: float
    rated: int  # closed rated tournaments of the game the player was rated in
    rating: float  # mu - 3 sigma (0 for a player never rated: mu 25, sigma 25/3)


def parse(raw: Any) -> dict[str, Any] | None:
    """The conditions as stored (None for none); ValueError naming what is wrong."""
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise ValueError("conditions is a JSON object")
    out: dict[str, Any] = {}
    for key, value in raw.items():
        if key not in KNOWN:
            raise ValueError(f"unknown condition {str(key)[:40]!r}; known: {', '.join(KNOWN)}")
        if key == "bots":
            if not isinstance(value, bool):
                raise ValueError("condition bots is true or false")
        elif isinstance(value, bool) or not isinstance(value, int | float) or value != value:
            raise ValueError(f"condition {key} is a number")
        elif key in ("min_account_age_s", "min_rated") and (value < 0 or value != int(value)):
            raise ValueError(f"condition {key} is a whole number, 0 or more")
        out[key] = value
    if "min_rating" in out and "max_rating" in out and out["min_rating"] > out["max_rating"]:
        raise ValueError("condition min_rating is above max_rating")
    return out or None


class UnmetCondition(NamedTuple):
    """A condition the player does not meet: its name, its figures (`limit`, `yours`) for
    a message in the player's language (reason `condition_<name>`), the English text."""

    condition: str
    params: dict[str, Any]
    text: str


def refusal(conditions: dict[str, Any] | None, facts: Facts) -> UnmetCondition | None:
    """Why the player may not join, naming the condition; None when they may."""
    if not conditions:
        return None
    if conditions.get("bots", True) is False and facts.bot:
        return UnmetCondition(
            "bots", {}, "entry condition bots: false: bots may not enter this tournament"
        )
    age = conditions.get("min_account_age_s")
    if age is not None and facts.account_age_s < age:
        yours = int(facts.account_age_s)
        return UnmetCondition(
            "min_account_age_s",
            {"limit": age, "yours": yours},
            f"entry condition min_account_age_s: the account must be at least {age} s old "
            f"(it is {yours} s)",
        )
    rated = conditions.get("min_rated")
    if rated is not None and facts.rated < rated:
        return UnmetCondition(
            "min_rated",
            {"limit": rated, "yours": facts.rated},
            f"entry condition min_rated: at least {rated} rated tournaments of this game "
            f"(you have {facts.rated})",
        )
    low = conditions.get("min_rating")
    if low is not None and facts.rating < low:
        return UnmetCondition(
            "min_rating",
            {"limit": low, "yours": round(facts.rating, 2)},
            f"entry condition min_rating: a rating of at least {low} (yours is {facts.rating:.2f})",
        )
    high = conditions.get("max_rating")
    if high is not None and facts.rating > high:
        return UnmetCondition(
            "max_rating",
            {"limit": high, "yours": round(facts.rating, 2)},
            f"entry condition max_rating: a rating of at most {high} (yours is {facts.rating:.2f})",
        )
    return None
