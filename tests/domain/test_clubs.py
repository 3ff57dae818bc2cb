"""Clubs' pure rules (server/domain/clubs.py): who leads, a description's rule, join codes."""

from __future__ import annotations

import pytest

from server.domain.clubs import (
    CODE_ALPHABET,
    CODE_LENGTH,
    DESCRIPTION_MAX,
    BadDescription,
    Role,
    checked_description,
    leads,
    new_code,
)


def test_the_owner_and_the_leaders_lead_members_do_not() -> None:
    assert leads(Role.OWNER) and leads(Role.LEADER)
    assert not leads(Role.MEMBER) and not leads(None)


def test_a_description_is_kept_as_typed_and_none_is_empty() -> None:
    assert checked_description(None) == ""
    assert checked_description("Friday nights\u00a0♠") == "Friday nights\u00a0♠"
    assert checked_description("x" * DESCRIPTION_MAX) == "x" * DESCRIPTION_MAX


@pytest.mark.parametrize(
    ("text", "why"), [("x" * (DESCRIPTION_MAX + 1), "at most 500"), ("a\nb", "control")]
)
def test_a_bad_description_is_refused_saying_why(text: str, why: str) -> None:
    with pytest.raises(BadDescription, match=why):
        checked_description(text)


def test_a_join_code_is_random_letters_and_digits() -> None:
    codes = {new_code() for _ in range(50)}
    assert len(codes) == 50
    assert all(len(c) == CODE_LENGTH >= 8 and set(c) <= set(CODE_ALPHABET) for c in codes)
