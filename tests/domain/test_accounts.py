"""Accounts' pure rules (server/domain/accounts.py): device labels, link codes, deleted
players' pseudonyms, and the passkeys' relying party."""

from __future__ import annotations

import pytest

from server.domain.accounts import (
    LABEL_MAX,
    LINK_ALPHABET,
    BadLabel,
    BadOrigin,
    RelyingParty,
    checked_label,
    code_key,
    is_reserved,
    pseudonym,
    public_origin,
    relying_party,
    shown_code,
)


def test_a_label_is_kept_as_typed_and_none_stays_none() -> None:
    assert checked_label("ana's phone ✓") == "ana's phone ✓"
    assert checked_label("x" * LABEL_MAX) == "x" * LABEL_MAX
    assert checked_label(None) is None


@pytest.mark.parametrize(
    ("label", "why"),
    [("", "1-64"), ("x" * (LABEL_MAX + 1), "1-64"), ("tab\there", "control"), ("\x00", "control")],
)
def test_a_bad_label_is_refused_saying_why(label: str, why: str) -> None:
    with pytest.raises(BadLabel, match=why):
        checked_label(label)


def test_a_link_code_is_shown_in_two_groups_and_typed_back_loosely() -> None:
    assert shown_code("BCDFGHJK") == "BCDF-GHJK"
    assert code_key("BCDF-GHJK") == "BCDFGHJK"
    assert code_key("  bcdfghjk ") == "BCDFGHJK"
    assert code_key(shown_code(LINK_ALPHABET[:8]).lower()) == LINK_ALPHABET[:8]


@pytest.mark.parametrize("typed", ["BCDF-GHJ", "BCDFGHJKL", "ABCD-EFGH", "BCDF--GHJK", "BCD1GHJK"])
def test_what_cannot_be_a_code_has_no_key(typed: str) -> None:
    assert code_key(typed) is None


def test_a_deleted_players_pseudonym_is_reserved_in_any_case() -> None:
    assert pseudonym(42) == "deleted-42"
    assert is_reserved("deleted-42") and is_reserved("DELETED-7")
    assert not is_reserved("deleted-") and not is_reserved("deleted-4x")
    assert not is_reserved("undeleted-4")


@pytest.mark.parametrize(
    ("typed", "origin"),
    [
        ("https://Play.Example", "https://play.example"),
        ("https://play.example:443/", "https://play.example"),
        ("http://localhost:8000", "http://localhost:8000"),
        ("http://[::1]:80", "http://[::1]"),
        (" https://play.example:8443 ", "https://play.example:8443"),
    ],
)
def test_a_public_origin_is_scheme_host_and_port_without_the_default(
    typed: str, origin: str
) -> None:
    assert public_origin(typed) == origin


@pytest.mark.parametrize(
    "typed",
    [
        "ftp://play.example",
        "play.example",
        "https://",
        "https://play.example/path",
        "https://play.example?q=1",
        "https://ana@play.example",
        "https://play.example:99999",
    ],
)
def test_what_is_no_origin_is_refused(typed: str) -> None:
    with pytest.raises(BadOrigin):
        public_origin(typed)


def test_the_relying_party_is_the_public_origins_host_when_there_is_one() -> None:
    rp = relying_party("https://play.example", "other.host:8000", ["https://extra.example"])
    assert rp == RelyingParty("play.example", ("https://play.example", "https://extra.example"))


def test_without_a_public_origin_the_host_header_names_it() -> None:
    rp = relying_party(None, "Play.Example:8000", [])
    assert rp == RelyingParty(
        "play.example", ("https://play.example:8000", "http://play.example:8000")
    )


@pytest.mark.parametrize("host", [None, "", "[bad", ":80"])
def test_no_relying_party_without_a_usable_host(host: str | None) -> None:
    assert relying_party(None, host, ["https://extra.example"]) is None
