"""Records that cross layers (frozen values the store returns and the competition, net
and audit read), the refusals the store reports, and the canonical text of an action.

Never an ORM row, a socket or a clock: plain values only.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any, NamedTuple

import orjson

from server.games.base import Status

__all__ = [
    "DuplicateAction",
    "EntryExists",
    "EntryInfo",
    "Figures",
    "LoggedAction",
    "NameErased",
    "NameTaken",
    "NewTournament",
    "PlayerInfo",
    "Status",
    "Summary",
    "TournamentClosed",
    "TournamentInfo",
    "TournamentStatus",
    "canonical_json",
]


class TournamentStatus(StrEnum):
    """A tournament's lifecycle (COMPETITION.md): scheduled -> open -> closed."""

    SCHEDULED = "scheduled"
    OPEN = "open"
    CLOSED = "closed"


def canonical_json(action: dict[str, Any]) -> str:
    """The text an action is stored and hashed as (RECORD.md's canonical form): JSON with
    keys sorted at every level, no whitespace, non-ASCII escaped as \\uXXXX. Equal actions
    have equal texts."""
    text = orjson.dumps(action, option=orjson.OPT_SORT_KEYS).decode()
    if text.isascii():
        return text
    return json.dumps(action, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


# -- refusals ------------------------------------------------------------------
class NameTaken(Exception):
    """A player with that name (case-insensitively) exists."""


class NameErased(Exception):
    """The name (case-insensitively) was a deleted account's: it is never registered again."""


class EntryExists(Exception):
    """The player already has an entry in that tournament."""


class DuplicateAction(Exception):
    """The log already holds an action with this (entry, seq)."""


class TournamentClosed(Exception):
    """The tournament was closed (perhaps by another process) before this action committed."""


# -- records -------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class PlayerInfo:
    id: int
    name: str
    admin: bool
    bot: bool = False  # bots play but are never rated


class Figures(NamedTuple):
    """An entry's figures: its game's status and what it ranks on and shows. The one
    record of them: the store reads and writes them (rows.py), the standings rank on
    them (ranking.Result, standings.rows.EntryRow), notices, records and the protocol
    carry them (each wire format made from it by one function). `time_ms` is the final
    time of an ended game, 0 while it is playing (standings run its clock from the
    entry's start)."""

    status: Status
    progress: int
    resets: int
    score: int
    time_ms: int


class Summary(NamedTuple):
    """What an entry's row says about its game after an action: its figures and how many
    actions its log holds (the store writes it; store/rows.py lays it out as columns)."""

    figures: Figures
    seq: int
    # The chain head this change caches in the entry's row: the hex samedeal-log/1 head
    # after `seq` actions at a checkpoint (competition/live_game.py CHECKPOINT; always at the
    # join and when the game ends), or "" when the change caches none and the row keeps
    # its older head (most actions; a timeout). Never the head of anything but `seq`.
    log_hash: str


@dataclass(frozen=True, slots=True)
class NewTournament:
    """A tournament to store, with its secret seed (written where no public query reads)."""

    name: str
    game: str
    options: dict[str, Any]
    commitment: str
    seed_hex: str
    starts_at: datetime
    ends_at: datetime
    join_until: datetime
    time_limit_s: int | None
    status: TournamentStatus
    deal_attempt: int
    guaranteed: bool
    solution: list[dict[str, Any]] | None
    created_at: datetime
    beacon: dict[str, Any] | None = None  # the planned round (RNG.md "Public beacon")
    # series: the schedule and occurrence it is, entry conditions, rated
    schedule_id: int | None = None
    occurrence: int | None = None
    conditions: dict[str, Any] | None = None
    rated: bool = True
    # club events (v1.4): its club, `public`|`unlisted`, the code its join needs (never
    # in a record, bundle or list: domain/club_events.Viewer), its creator, a battle's
    # {"clubs": [ID...], "counted": N}
    club_id: int | None = None
    visibility: str = "public"
    entry_code: str | None = None
    created_by: int | None = None
    battle: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class TournamentInfo:
    """Public facts of a tournament. Never carries the seed."""

    id: int
    name: str
    game: str
    options: dict[str, Any]
    commitment: str
    starts_at: datetime
    ends_at: datetime
    join_until: datetime
    time_limit_s: int | None
    status: TournamentStatus
    deal_attempt: int
    guaranteed: bool
    solution: list[dict[str, Any]] | None
    created_at: datetime
    closed_at: datetime | None
    entrants: int = 0
    beacon: dict[str, Any] | None = None  # {"network","chain_hash","round"[,"signature"...]}
    void: bool = False  # closed for want of its beacon round
    # series: the schedule and occurrence it is, entry conditions, rated
    schedule_id: int | None = None
    occurrence: int | None = None
    conditions: dict[str, Any] | None = None
    rated: bool = True
    # club events (v1.4): its club, `public`|`unlisted`, the code its join needs (never
    # in a record, bundle or list: domain/club_events.Viewer), its creator, a battle's
    # {"clubs": [ID...], "counted": N}
    club_id: int | None = None
    visibility: str = "public"
    entry_code: str | None = None
    created_by: int | None = None
    battle: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class EntryInfo:
    """One player's entry in one tournament: its row, with its figures as stored."""

    id: int
    tournament_id: int
    player_id: int
    player_name: str
    started_at: datetime
    deadline: datetime
    figures: Figures
    seq: int
    # The chain head the row caches, after `log_seq` actions (<= seq): written only at
    # checkpoints, so usually older than `seq`; the current head needs the actions after
    # log_seq (competition/live_game.py). "" for a row written before receipts existed.
    log_hash: str
    log_seq: int
    player_bot: bool = False  # the player is a bot (marked in standings)
    club_id: int | None = None  # v1.4: in a team battle, the club the entry plays for


@dataclass(frozen=True, slots=True)
class LoggedAction:
    """One stored action of an entry's log."""

    seq: int
    at_ms: int
    action: dict[str, Any]


# -- notices: what one node tells the others (several nodes on one database) ---------
class EntryNotice(NamedTuple):
    """An entry's row changed (an action, a timeout): its figures and seq after it."""

    tournament_id: int
    entry_id: int
    seq: int
    figures: Figures


class JoinNotice(NamedTuple):
    """A new entry."""

    tournament_id: int
    entry_id: int


class TournamentNotice(NamedTuple):
    """A tournament was created, opened or closed."""

    tournament_id: int


class DevicesNotice(NamedTuple):
    """Devices were revoked (v1.4 accounts): their connections are signed out."""

    device_ids: tuple[int, ...]


class RenamedNotice(NamedTuple):
    """A player of the tournament was renamed (a deleted account, v1.4): read it again."""

    tournament_id: int


Notice = EntryNotice | JoinNotice | TournamentNotice | DevicesNotice | RenamedNotice
