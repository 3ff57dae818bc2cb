"""Gaps options and the family's variants (RULES-GAPS.md "Redeal variant (v1.3)" and
"Family variants (v1.4)"), declared as data.

A `Variant` says what its member changes; the one engine (gaps.py) and the search
(gaps_search.py) read these flags, never a variant's name:
- `fixed_twos` (montana): the 2s are dealt into column 0, C D H S from the top.
- `aces_make_gaps` (addiction): a redeal shuffles the aces in with the gathered cards
  and fills every cell not kept; the gaps are where the aces fall.
- `right_neighbour` (free_parking): a gap outside column 0 also accepts the card one
  rank below its right neighbour, in that card's suit.

`GapsOptions` parses a tournament's options: `redeals` defaults to the variant's, and a
combination a rule forbids is refused with a one-line reason naming the option.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, model_serializer, model_validator
from pydantic_core import PydanticCustomError

VariantName = Literal["gaps", "montana", "addiction", "free_parking"]
RedealRule = Literal["keep_runs", "reshuffle_all"]
KEEP_RUNS: RedealRule = "keep_runs"
RESHUFFLE_ALL: RedealRule = "reshuffle_all"
MAX_REDEALS = 3


@dataclass(frozen=True, slots=True)
class Variant:
    """One member of the Gaps family: its name, default redeals and rule hooks."""

    name: VariantName
    default_redeals: int = 2
    fixed_twos: bool = False
    aces_make_gaps: bool = False
    right_neighbour: bool = False

    @property
    def allows_reshuffle_all(self) -> bool:
        """reshuffle_all would gather montana's pre-placed 2s."""
        return not self.fixed_twos

    @property
    def allows_winnable(self) -> bool:
        """The winnable search and its proof are plain Gaps'."""
        return self.name == "gaps"


GAPS_VARIANT = Variant("gaps")
VARIANTS: dict[str, Variant] = {
    v.name: v
    for v in (
        GAPS_VARIANT,
        Variant("montana", fixed_twos=True),
        Variant("addiction", default_redeals=3, aces_make_gaps=True),
        Variant("free_parking", right_neighbour=True),
    )
}
VARIANT_NAMES: tuple[str, ...] = get_args(VariantName)
_ALLOWED = ", ".join(VARIANT_NAMES)


def _refused(option: str, message: str) -> PydanticCustomError:
    context = {"option": option, "message": message}
    return PydanticCustomError("gaps_option", "{option}: {message}", context)


def _variant_problem(value: Any) -> str | None:
    """Why `value` is not a variant name, or None."""
    if not isinstance(value, str):
        shown = "null" if value is None else type(value).__name__
        return f"must be one of the strings {_ALLOWED}, not {shown}"
    if value in VARIANTS:
        return None
    hint = " (Spaces is redeal: reshuffle_all)" if value.lower() == "spaces" else ""
    case = " (names are exact lowercase)" if value.lower() in VARIANTS else ""
    return f"unknown variant {value!r}{hint}{case}; allowed: {_ALLOWED}"


class GapsOptions(BaseModel):
    """A Gaps tournament's options. Serialised without `variant` when it is `gaps`
    (RULES-GAPS.md: missing means gaps), so plain Gaps records are unchanged."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    variant: VariantName = "gaps"
    redeals: int = Field(default=2, ge=0, le=MAX_REDEALS, strict=True)
    redeal: RedealRule = KEEP_RUNS
    winnable: bool = Field(default=False, strict=True)

    @model_validator(mode="before")
    @classmethod
    def _variant_defaults(cls, data: Any) -> Any:
        if not isinstance(data, dict) or "variant" not in data:
            return data
        problem = _variant_problem(data["variant"])
        if problem is not None:
            raise _refused("variant", problem)
        if "redeals" not in data:
            return {**data, "redeals": VARIANTS[data["variant"]].default_redeals}
        return data

    @model_validator(mode="after")
    def _allowed_together(self) -> GapsOptions:
        variant = VARIANTS[self.variant]
        if self.redeal == RESHUFFLE_ALL and not variant.allows_reshuffle_all:
            why = "reshuffle_all would gather its pre-placed 2s"
            raise _refused("redeal", f"variant {self.variant} allows only keep_runs ({why})")
        if self.winnable and not variant.allows_winnable:
            raise _refused("winnable", f"true needs variant gaps, not {self.variant}")
        return self

    @model_serializer(mode="wrap")
    def _without_default_variant(self, handler: Any) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        if data.get("variant") == "gaps":
            del data["variant"]
        return data

    @property
    def rules(self) -> Variant:
        """The variant's declared rules."""
        return VARIANTS[self.variant]
