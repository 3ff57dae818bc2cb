"""Accounts (v1.4, PROTOCOL.md "Accounts"): a device's record and the checks on what a
player types about devices. Pure: no clock, no store."""

from __future__ import annotations

import re
import unicodedata
import urllib.parse
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from server.i18n.said import said

LABEL_MAX = 64  # code points

# Texts a player can read (kept together so that they can move into catalogues).
TEXTS = {
    "label_length": "a device label is 1-64 characters",
    "label_control": "a device label has no control characters",
}


class DeviceKind(StrEnum):
    """How a device came in: registering, a linked device, a passkey's sign-in."""

    TOKEN = "token"
    LINK = "link"
    PASSKEY = "passkey"


@dataclass(frozen=True, slots=True)
class DeviceInfo:
    """One device of a player (never its token: only the store's hash of it exists)."""

    id: int
    player_id: int
    kind: DeviceKind
    label: str | None
    created_at: datetime
    last_seen_at: datetime


class BadLabel(ValueError):
    """A label that is not 1-64 characters without control characters (says why)."""


def checked_label(label: str | None) -> str | None:
    """The label as stored (None stays None); BadLabel saying why not."""
    if label is None:
        return None
    if not 1 <= len(label) <= LABEL_MAX:
        raise BadLabel(TEXTS["label_length"])
    if any(unicodedata.category(c) == "Cc" for c in label):
        raise BadLabel(TEXTS["label_control"])
    return label


# -- linking a device (after RFC 8628) -------------------------------------------------
LINK_ALPHABET = "BCDFGHJKLMNPQRSTVWXZ"  # no vowels: no words; no look-alikes
LINK_CODE_LENGTH = 8


def shown_code(code: str) -> str:
    """A user code as shown: two groups of four (`BCDF-GHJK`)."""
    return f"{code[:4]}-{code[4:]}"


def code_key(typed: str) -> str | None:
    """A typed user code as looked up: case-insensitive, the hyphen optional; None when it
    cannot be a code at all."""
    key = typed.strip().upper().replace("-", "", 1)
    if len(key) != LINK_CODE_LENGTH or not set(key) <= set(LINK_ALPHABET):
        return None
    return key


# -- deleted accounts ------------------------------------------------------------------
PSEUDONYM = re.compile(r"deleted-[0-9]+", re.IGNORECASE)


def pseudonym(player_id: int) -> str:
    """A deleted player's name everywhere public."""
    return f"deleted-{player_id}"


def is_reserved(name: str) -> bool:
    """`deleted-` and digits, in any case: nobody registers it."""
    return PSEUDONYM.fullmatch(name) is not None


# -- passkeys: the relying party (WebAuthn) ----------------------------------------------
class BadOrigin(ValueError):
    """Not an origin `serve --public-origin` takes (scheme, host, optional port)."""


@dataclass(frozen=True, slots=True)
class RelyingParty:
    """Whom passkeys are made for: the RP ID (a host) and the origins a ceremony may
    come from."""

    id: str
    origins: tuple[str, ...]


def public_origin(text: str) -> str:
    """`serve --public-origin URL` as an origin (`https://host[:port]`, lower case, no
    default port); BadOrigin saying why not."""
    try:
        parts = urllib.parse.urlsplit(text.strip())
        port = parts.port
    except ValueError as e:
        raise BadOrigin(said("server.origin.not_url", why=str(e))) from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise BadOrigin(said("server.origin.scheme_host"))
    if parts.path not in ("", "/") or parts.query or parts.fragment or parts.username:
        raise BadOrigin(said("server.origin.nothing_else"))
    host = parts.hostname.lower()
    shown = f"[{host}]" if ":" in host else host
    default = {"http": 80, "https": 443}[parts.scheme]
    return f"{parts.scheme}://{shown}" + (f":{port}" if port not in (None, default) else "")


def relying_party(
    origin: str | None, host_header: str | None, allowed: Iterable[str]
) -> RelyingParty | None:
    """The relying party of a connection: the public origin's host when there is one,
    else the host of the WebSocket request's `Host` (port dropped) with `https://` or
    `http://` before that `Host`; origins from `serve --allowed-origin` count too. None
    without either (no `Host`: a client that is no browser)."""
    extra = tuple(allowed)
    if origin is not None:
        host = urllib.parse.urlsplit(origin).hostname or ""
        return RelyingParty(host, (origin, *extra))
    if not host_header:
        return None
    given = host_header.strip().lower()
    try:
        named = urllib.parse.urlsplit(f"//{given}").hostname
    except ValueError:
        return None
    if not named:
        return None
    return RelyingParty(named, (f"https://{given}", f"http://{given}", *extra))
