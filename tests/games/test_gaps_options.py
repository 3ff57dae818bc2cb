"""Gaps options (gaps_options.py): a variant's own default redeals, the combinations its
rules forbid refused naming the option, an unknown variant with a hint, and plain Gaps
written without `variant` (its records unchanged)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from server.games.gaps_options import VARIANTS, GapsOptions


def test_each_variant_declares_its_rules_and_default_redeals() -> None:
    assert GapsOptions.model_validate({"variant": "addiction"}).redeals == 3
    assert GapsOptions.model_validate({"variant": "addiction", "redeals": 0}).redeals == 0
    assert GapsOptions.model_validate({}).rules is VARIANTS["gaps"]
    assert VARIANTS["montana"].fixed_twos and not VARIANTS["montana"].allows_reshuffle_all


def test_plain_gaps_is_written_without_its_variant() -> None:
    assert "variant" not in GapsOptions().model_dump()
    assert GapsOptions.model_validate({"variant": "montana"}).model_dump()["variant"] == "montana"


@pytest.mark.parametrize(
    ("options", "says"),
    [
        ({"variant": "montana", "redeal": "reshuffle_all"}, "redeal: variant montana allows only"),
        ({"variant": "addiction", "winnable": True}, "winnable: true needs variant gaps"),
        ({"variant": "Montana"}, "names are exact lowercase"),
        ({"variant": "spaces"}, "Spaces is redeal: reshuffle_all"),
        ({"variant": None}, "must be one of the strings"),
    ],
)
def test_what_a_rule_forbids_is_refused_naming_the_option(
    options: dict[str, object], says: str
) -> None:
    with pytest.raises(ValidationError, match=says):
        GapsOptions.model_validate(options)
