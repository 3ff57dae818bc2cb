"""Clubs (v1.4, PROTOCOL.md "Clubs"): the pure rules. A club's name follows the player
names' rule and is compared as they are (server/domain/names.py); a description is at
most 500 characters without control characters; a join code is random letters and
digits, compared exactly."""

from __future__ import annotations

import secrets
import string
import unicodedata
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

MAX_OWNED = 3  # clubs a player may own (PROTOCOL.md: beyond, `clubs_owned`)
DESCRIPTION_MAX = 500
CODE_ALPHABET = string.ascii_letters + string.digits
CODE_LENGTH = 12  # at least 8 (the contract); 62^12 > 2^71
GUESSES_PER_MINUTE = 10  # wrong codes of a player before `codes` holds for the minute
PAGE_MAX = 100


class Role(StrEnum):
    OWNER = "owner"
    LEADER = "leader"
    MEMBER = "member"


def leads(role: Role | None) -> bool:
    """A leader of a club is its owner or one of its leaders."""
    return role in (Role.OWNER, Role.LEADER)


class BadDescription(ValueError):
    """A description that breaks the rule; its text is the one-line reason."""


def checked_description(text: str | None) -> str:
    """The description as stored (`""` for none); BadDescription saying why not."""
    if text is None:
        return ""
    if len(text) > DESCRIPTION_MAX:
        raise BadDescription(f"a club's description is at most {DESCRIPTION_MAX} characters")
    if any(unicodedata.category(c) == "Cc" for c in text):
        raise BadDescription("a club's description has no control characters")
    return text


def new_code() -> str:
    """A fresh join code: CODE_LENGTH random letters and digits."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


@dataclass(frozen=True, slots=True)
class ClubInfo:
    """A club as one asker sees it (PROTOCOL.md CLUB). `invite` is its current code when
    the asker is its owner or a leader, else None."""

    id: int
    name: str
    description: str
    owner: str | None
    leaders: tuple[str, ...]
    members: int
    created_at: datetime
    role: Role | None
    invite: str | None = None
    member_names: tuple[str, ...] | None = None
