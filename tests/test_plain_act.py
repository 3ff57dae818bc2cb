"""The act fast path accepts exactly a subset of what full validation accepts, with the
same result."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from server.net import protocol

ints = st.one_of(
    st.integers(min_value=-3, max_value=3),
    st.just(protocol.MAX_ID),
    st.just(protocol.MAX_ID + 1),
    st.integers(),
    st.booleans(),
    st.floats(allow_nan=False),
    st.text(max_size=3),
    st.none(),
)
values = st.one_of(ints, st.dictionaries(st.text(max_size=3), st.integers(), max_size=2))
act_like = st.fixed_dictionaries(
    {"type": st.sampled_from(["act", "act", "join", 5])},
    optional={
        "id": values,
        "tournament": values,
        "seq": values,
        "action": values,
        "extra": values,
    },
)


def full(data: Any) -> Any:
    try:
        return protocol.CLIENT_MESSAGE.validate_python(data)
    except ValidationError:
        return None


@settings(max_examples=600, deadline=None)
@given(act_like)
def test_plain_act_agrees_with_full_validation(data: dict[str, Any]) -> None:
    quick = protocol.plain_act(data)
    if quick is not None:
        assert quick == full(data)


def test_plain_act_takes_the_common_shape() -> None:
    data = {"type": "act", "id": 7, "tournament": 1, "seq": 3, "action": {"kind": "redeal"}}
    assert protocol.plain_act(data) == full(data)
    assert protocol.plain_act({**data, "seq": True}) is None  # bools are not ints
    assert protocol.plain_act({**data, "seq": 0}) is None
    assert protocol.plain_act({**data, "id": 1.5}) is None
    assert protocol.plain_act({**data, "junk": 1}) is None
