"""Entry conditions (conditions.py, COMPETITION.md "Series"): a failed one is named (its
reason on the wire), met ones allow, bots are allowed unless a condition says not, and
malformed conditions are refused."""

from __future__ import annotations

import pytest

from server.domain import conditions
from server.domain.conditions import Facts

FRESH = Facts(bot=False, account_age_s=10, rated=0, rating=0.0)


@pytest.mark.parametrize(
    ("conds", "facts", "named"),
    [
        ({"min_account_age_s": 60}, FRESH, "min_account_age_s"),
        ({"min_rated": 1}, FRESH, "min_rated"),
        ({"min_rating": 5}, FRESH, "min_rating"),
        ({"max_rating": -1}, FRESH, "max_rating"),
        ({"bots": False}, FRESH._replace(bot=True), "bots"),
    ],
)
def test_a_failed_condition_is_named(conds: dict[str, object], facts: Facts, named: str) -> None:
    why = conditions.refusal(conditions.parse(conds), facts)
    assert why is not None and why.text.startswith(f"entry condition {named}")
    assert why.condition == named  # reason condition_<named> on the wire (docs/I18N.md)


def test_conditions_met_allow_and_bots_default_to_allowed() -> None:
    met = {"min_account_age_s": 10, "min_rated": 0, "min_rating": 0, "max_rating": 0}
    assert conditions.refusal(conditions.parse(met), FRESH) is None
    assert conditions.refusal(None, FRESH._replace(bot=True)) is None
    assert conditions.refusal({"min_rated": 0}, FRESH._replace(bot=True)) is None


@pytest.mark.parametrize(
    "raw",
    [[], {"min_age": 1}, {"bots": 1}, {"min_rated": 1.5}, {"min_rated": -1},
     {"min_rating": True}, {"min_rating": 10, "max_rating": 5}],
)  # fmt: skip
def test_bad_conditions_are_refused(raw: object) -> None:
    with pytest.raises(ValueError, match="condition"):
        conditions.parse(raw)
