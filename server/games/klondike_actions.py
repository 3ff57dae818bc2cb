"""Klondike's actions at the edge: the four action models and how JSON becomes them.

The wire forms of draw, move, auto and resign (RULES-KLONDIKE.md "Actions";
PROTOCOL.md). A move's places arrive as protocol texts ("t3", "fH", "waste") and
are turned into klondike_core's typed members here, once, by `validate_action`; the
engine (klondike_state) only ever sees those members. Written back, a place is
its text again, byte for byte. What an action does is klondike_state's business.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    GetCoreSchemaHandler,
    GetJsonSchemaHandler,
    TypeAdapter,
)
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import PydanticCustomError, core_schema

from server.games.klondike_core import (
    PLACE_NAMES,
    PLACES,
    Foundation,
    Place,
    Tableau,
    Waste,
)

__all__ = [
    "Auto",
    "Draw",
    "KlondikeAction",
    "Move",
    "PlaceField",
    "Resign",
    "validate_action",
]


class _PlaceTable(dict[object, Place]):
    """Protocol texts, and the members themselves, to places; a miss is a validation error."""

    def __missing__(self, key: object) -> Place:
        raise PydanticCustomError(
            "place",
            "unknown place {place}: use {names}",
            {"place": repr(key), "names": PLACE_NAMES},
        )


_PLACE_OF = _PlaceTable({p: p for p in PLACES.values()})
_PLACE_OF.update(PLACES)


class _PlaceSchema:
    """How pydantic reads and writes a place: a text (or a member) looked up in _PLACE_OF by
    the dict's own __getitem__ (C code, no Python frame on a hit, so a move parses as fast
    as the former Literal check), written back as its text."""

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        is_text = core_schema.custom_error_schema(
            core_schema.is_instance_schema((str, Waste, Tableau, Foundation)),
            custom_error_type="place",
            custom_error_message=f"a place is one of the texts {PLACE_NAMES}",
        )
        return core_schema.chain_schema(
            [is_text, core_schema.no_info_plain_validator_function(_PLACE_OF.__getitem__)],
            serialization=core_schema.plain_serializer_function_ser_schema(
                attrgetter("text"), return_schema=core_schema.str_schema()
            ),
        )

    def __get_pydantic_json_schema__(
        self, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        return {"type": "string", "enum": list(PLACES)}


PlaceField = Annotated[Place, _PlaceSchema()]
"""A place in an action: parsed from and written as its protocol text."""


class _Action(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class Draw(_Action):
    """Turn 1 or 3 stock cards onto the waste, or recycle the waste when the stock is empty."""

    kind: Literal["draw"] = "draw"


class Move(_Action):
    """Move `count` cards from one place to another (count > 1 only between columns).

    On the wire `source` is "from"; build one with `Move(source=TABLEAU[3], to=FOUNDATIONS[2])`
    (protocol texts are accepted too: `Move(source="t3", to="fH")`).
    """

    kind: Literal["move"] = "move"
    source: PlaceField = Field(validation_alias="from", serialization_alias="from")
    to: PlaceField
    count: Annotated[int, Field(strict=True, ge=1, le=13)] = 1


class Auto(_Action):
    kind: Literal["auto"] = "auto"


class Resign(_Action):
    kind: Literal["resign"] = "resign"


KlondikeAction = Draw | Move | Auto | Resign
_ACTION: TypeAdapter[KlondikeAction] = TypeAdapter(
    Annotated[KlondikeAction, Field(discriminator="kind")]
)

validate_action: Callable[[Any], KlondikeAction] = _ACTION.validator.validate_python
"""JSON data to a typed action, its places made klondike_core members; raises pydantic's
ValidationError. Bound once: KlondikeRules.parse_action calls it and wraps the error."""
