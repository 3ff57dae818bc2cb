"""Player names (PROTOCOL.md v1.4 "Players"): letters of one script, NFC, keys."""

from __future__ import annotations

import pytest

from server.domain.names import BadName, name_key, normalise


@pytest.mark.parametrize(
    "name",
    [
        "João",
        "Muñoz",
        "Ærø",
        "ana_b-2",
        "İsmail",
        "Ελένη",
        "Дмитрий",
        "山田Taro",
        "たろう",
        "김민준",
    ],
)
def test_names_of_one_script_pass_unchanged(name: str) -> None:
    assert normalise(name) == name


def test_a_name_is_normalised_to_nfc_before_anything_else() -> None:
    assert normalise("Joa\u0303o") == "Jo\u00e3o"
    assert normalise("e\u0301" * 32) == "\u00e9" * 32  # 64 code points before NFC, 32 after


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("", "1-32"),
        ("a" * 33, "1-32"),
        ("J\u043e\u00e3o", "Cyrillic and Latin"),  # a Cyrillic о inside a Latin name
        ("Ελένa", "Greek and Latin"),
        ("김たろう", "Hangul and Hiragana"),  # each set of UTS #39 is allowed alone
        ("\u0301a", "1-32"),  # a mark must follow a letter
        ("a b", "1-32"),
        ("bob!", "1-32"),
        ("\u0661\u0662", "1-32"),  # digits are 0-9 only
    ],
)
def test_bad_names_are_refused_saying_why(name: str, why: str) -> None:
    with pytest.raises(BadName) as refused:
        normalise(name)
    assert why in str(refused.value)


def test_two_names_are_one_player_when_their_nfc_lower_cased_forms_agree() -> None:
    assert name_key("JOÃO") == name_key("joa\u0303o") == "jo\u00e3o"
    assert name_key("İsmail") == "i\u0307smail"  # full case mapping: two code points
    assert name_key("Straße") != name_key("STRASSE")  # lower-cased, not case-folded
