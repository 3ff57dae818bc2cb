"""Typed ORM models. The action log is the source of truth; entries cache its summary.

The seed lives in its own table (`tournament_secrets`), so no query for public data
can select it by accident; it is read only to deal and, after the close, to reveal.

`TournamentRow` and `DisqualificationRow` carry "Row" to stand apart from the runtime
tournament (competition/tournament.py) and the bundle's record (audit/records.py).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    Double,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column
from sqlalchemy.sql.expression import false, true
from sqlalchemy.types import TypeDecorator

NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


def utc_naive(value: datetime) -> datetime:
    """The naive UTC time the database holds for an aware datetime (the writers' raw SQL
    binds it too)."""
    if value.tzinfo is None:
        raise ValueError("naive datetime given to the store")
    return value.astimezone(UTC).replace(tzinfo=None)


class UTCDateTime(TypeDecorator[datetime]):
    """Aware UTC datetimes in, aware UTC datetimes out, on every backend."""

    impl = DateTime
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        return None if value is None else utc_naive(value)

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        return None if value is None else value.replace(tzinfo=UTC)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)


class Player(Base):
    __tablename__ = "players"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(32))
    name_key: Mapped[str] = mapped_column(String(64), unique=True)  # server.domain.names.name_key
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)  # sha256 of the token
    admin: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    bot: Mapped[bool] = mapped_column(Boolean, server_default=false())  # never rated


class TournamentRow(Base):
    __tablename__ = "tournaments"
    __table_args__ = (  # schedules (0006): each occurrence of a schedule exists once
        Index("uq_tournaments_schedule_occurrence", "schedule_id", "occurrence", unique=True),
    )
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(100))
    game: Mapped[str] = mapped_column(String(16))
    options: Mapped[dict[str, Any]] = mapped_column(JSON)
    commitment: Mapped[str] = mapped_column(String(64))
    starts_at: Mapped[datetime] = mapped_column(UTCDateTime)
    ends_at: Mapped[datetime] = mapped_column(UTCDateTime)
    join_until: Mapped[datetime] = mapped_column(UTCDateTime)
    time_limit_s: Mapped[int | None] = mapped_column(Integer, nullable=True)
    status: Mapped[str] = mapped_column(String(16), default="scheduled")  # or open, closed
    deal_attempt: Mapped[int] = mapped_column(Integer, default=0)
    guaranteed: Mapped[bool] = mapped_column(Boolean, default=False)  # a proof was found
    solution: Mapped[list[dict[str, Any]] | None] = mapped_column(JSON, nullable=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    closed_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    rated: Mapped[bool] = mapped_column(Boolean, server_default=true())  # counts for ratings
    # when the rating step took this closed tournament in (placings written, ratings
    # updated when rated): once per tournament, the mark is the step's idempotency key
    rated_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    # A public beacon (migration 0005): {"network","chain_hash","round"}, plus the round's
    # signature(s) once verified; `void`: closed for want of the round.
    beacon: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    void: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    # series (0006): the schedule and occurrence k it is (None: made by hand), and the
    # entry conditions (None: anyone may join)
    schedule_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
    occurrence: Mapped[int | None] = mapped_column(Integer, nullable=True)
    conditions: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    # par (0008): when every entry of the closed tournament had its par (the par step's
    # once-per-tournament mark, competition/par.py)
    par_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    # club events (0015, PROTOCOL.md "Clubs"): the club it belongs to, who lists it
    # (`public` | `unlisted`), the code its join needs, its creator (None: the operator's
    # command line), and a battle's {"clubs": [ID...], "counted": N}
    club_id: Mapped[int | None] = mapped_column(ForeignKey("clubs.id"), index=True)
    visibility: Mapped[str] = mapped_column(String(8), server_default="public")
    entry_code: Mapped[str | None] = mapped_column(String(32), nullable=True)
    created_by: Mapped[int | None] = mapped_column(ForeignKey("players.id"))
    # none_as_null: no battle is SQL NULL (not JSON null), what the clubs' limits filter on
    battle: Mapped[dict[str, Any] | None] = mapped_column(JSON(none_as_null=True), nullable=True)


class Schedule(Base):
    """An operator's recurring tournament (docs/COMPETITION.md "Series")."""

    __tablename__ = "schedules"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(100))
    game: Mapped[str] = mapped_column(String(16))
    options: Mapped[dict[str, Any]] = mapped_column(JSON)
    first_starts_at: Mapped[datetime] = mapped_column(UTCDateTime)
    every_s: Mapped[int] = mapped_column(Integer)
    duration_s: Mapped[int] = mapped_column(Integer)
    time_limit_s: Mapped[int | None] = mapped_column(Integer, nullable=True)
    join_for_s: Mapped[int | None] = mapped_column(Integer, nullable=True)
    conditions: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    rated: Mapped[bool] = mapped_column(Boolean)
    beacon: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    cancelled: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    # club events (0015): as on TournamentRow; its occurrences inherit them
    club_id: Mapped[int | None] = mapped_column(ForeignKey("clubs.id"), index=True)
    visibility: Mapped[str] = mapped_column(String(8), server_default="public")
    entry_code: Mapped[str | None] = mapped_column(String(32), nullable=True)
    created_by: Mapped[int | None] = mapped_column(ForeignKey("players.id"))


class TournamentSecret(Base):
    __tablename__ = "tournament_secrets"
    tournament_id: Mapped[int] = mapped_column(
        ForeignKey("tournaments.id", ondelete="CASCADE"), primary_key=True
    )
    seed: Mapped[str] = mapped_column(String(64))


class Entry(Base):
    """One player's game in one tournament, with the summary of its action log."""

    __tablename__ = "entries"
    __table_args__ = (UniqueConstraint("tournament_id", "player_id"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id"), index=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), index=True)
    started_at: Mapped[datetime] = mapped_column(UTCDateTime)
    deadline: Mapped[datetime] = mapped_column(UTCDateTime)
    status: Mapped[str] = mapped_column(String(16))
    progress: Mapped[int] = mapped_column(Integer, default=0)
    resets: Mapped[int] = mapped_column(Integer, default=0)
    score: Mapped[int] = mapped_column(Integer, default=0)
    time_ms: Mapped[int] = mapped_column(Integer, default=0)
    seq: Mapped[int] = mapped_column(Integer, default=0)  # actions accepted so far
    # hex head of the action log's hash chain (RECORDS.md "Receipts") after `log_seq`
    # actions, cached at checkpoints only (every CHECKPOINT-th action, the join, the end
    # of the game: competition/live_game.py); the head after `seq` also needs the actions
    # after log_seq. "" for rows written before the column existed: hash the whole log
    log_hash: Mapped[str] = mapped_column(String(64), server_default="")
    log_seq: Mapped[int] = mapped_column(Integer, server_default="0")  # log_hash's seq
    # the club a battle's entry plays for, for good (0015; None outside battles)
    club_id: Mapped[int | None] = mapped_column(ForeignKey("clubs.id"), nullable=True)


class Action(Base):
    __tablename__ = "actions"
    __table_args__ = (UniqueConstraint("entry_id", "seq"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    entry_id: Mapped[int] = mapped_column(ForeignKey("entries.id"))
    seq: Mapped[int] = mapped_column(Integer)
    at_ms: Mapped[int] = mapped_column(Integer)
    action: Mapped[str] = mapped_column(Text)  # the canonical JSON of the action


class PlayerRating(Base):
    """A player's current rating in one game (docs/COMPETITION.md "Ratings")."""

    __tablename__ = "ratings"
    __table_args__ = (Index("ix_ratings_game_rating", "game", "rating"),)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), primary_key=True)
    game: Mapped[str] = mapped_column(String(16), primary_key=True)
    mu: Mapped[float] = mapped_column(Double)
    sigma: Mapped[float] = mapped_column(Double)
    rating: Mapped[float] = mapped_column(Double)  # mu - 3 sigma, what leaderboards order
    tournaments: Mapped[int] = mapped_column(Integer)  # rated tournaments of the game


class Placing(Base):
    """One entry's final place in a closed tournament, and for a rated entrant of a rated
    tournament its rating after it (the rating's history: one row per rated tournament)."""

    __tablename__ = "placings"
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id"), primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), primary_key=True, index=True)
    game: Mapped[str] = mapped_column(String(16))
    rank: Mapped[int | None] = mapped_column(Integer, nullable=True)  # None: not ranked
    ranked: Mapped[int] = mapped_column(Integer)  # ranked entrants of the tournament
    entrants: Mapped[int] = mapped_column(Integer)  # all its entrants
    mu: Mapped[float | None] = mapped_column(Double, nullable=True)  # None: not rated
    sigma: Mapped[float | None] = mapped_column(Double, nullable=True)


class DisqualificationRow(Base):
    """An operator's disqualification of one entry (docs/COMPETITION.md "Fair play"): the
    entry and its actions stay; standings leave it unranked. `after_close`: made after
    the tournament closed, an amendment of its bundle."""

    __tablename__ = "disqualifications"
    entry_id: Mapped[int] = mapped_column(ForeignKey("entries.id"), primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id"), index=True)
    reason: Mapped[str] = mapped_column(Text)
    at: Mapped[datetime] = mapped_column(UTCDateTime)
    after_close: Mapped[bool] = mapped_column(Boolean)


class EntryPar(Base):
    """An entry's par (docs/COMPETITION.md "Par"), computed after the close: the best
    result found and its line; `line` None for Klondike (the tournament's solution)."""

    __tablename__ = "pars"
    entry_id: Mapped[int] = mapped_column(ForeignKey("entries.id"), primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id"), index=True)
    progress: Mapped[int] = mapped_column(Integer)
    resets: Mapped[int] = mapped_column(Integer)
    line: Mapped[list[dict[str, Any]] | None] = mapped_column(JSON, nullable=True)
    at: Mapped[datetime] = mapped_column(UTCDateTime)


class Device(Base):
    """One way into an account (v1.4, PROTOCOL.md "Accounts"): a token's hash (null for a
    linked device approved but not yet fetched), its kind and label; revoked ones stay."""

    __tablename__ = "devices"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), index=True)
    token_hash: Mapped[str | None] = mapped_column(String(64), unique=True)
    kind: Mapped[str] = mapped_column(String(8))  # token | link | passkey
    label: Mapped[str | None] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    last_seen_at: Mapped[datetime] = mapped_column(UTCDateTime)
    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    expires_at: Mapped[datetime | None] = mapped_column(UTCDateTime)  # a link not yet fetched


class LinkCode(Base):
    """A device link (v1.4, PROTOCOL.md "Accounts", after RFC 8628): hashes of its user
    code and poll code, the new device's label, its expiry and interval; once approved,
    the device made for it (its token made at the one poll that fetches it)."""

    __tablename__ = "link_codes"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    code_hash: Mapped[str] = mapped_column(String(64), unique=True)
    poll_hash: Mapped[str] = mapped_column(String(64), unique=True)
    label: Mapped[str | None] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime)
    interval_s: Mapped[int] = mapped_column(Integer)
    device_id: Mapped[int | None] = mapped_column(ForeignKey("devices.id"))
    last_poll_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    fetched: Mapped[bool] = mapped_column(Boolean, server_default=false())


class LinkGuess(Base):
    """A `link_approve` answered `not_found`: guesses counted per player and address."""

    __tablename__ = "link_guesses"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[int] = mapped_column(Integer, index=True)
    address: Mapped[str] = mapped_column(String(64), index=True)
    at: Mapped[datetime] = mapped_column(UTCDateTime)


class ErasedName(Base):
    """The name of a deleted account (v1.4): its key is never registered again."""

    __tablename__ = "erased_names"
    name_key: Mapped[str] = mapped_column(String(64), primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), unique=True)
    at: Mapped[datetime] = mapped_column(UTCDateTime)


class Erasure(Base):
    """An `erasure` amendment (v1.4): a tournament closed before its player's account was
    deleted, in which the player has an entry."""

    __tablename__ = "erasures"
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id"), primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), primary_key=True)
    at: Mapped[datetime] = mapped_column(UTCDateTime)


class PasskeyUser(Base):
    """A player's WebAuthn user handle (v1.4): random bytes, the same for all their
    passkeys (what a discoverable credential gives back as `userHandle`)."""

    __tablename__ = "passkey_users"
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), primary_key=True)
    handle: Mapped[str] = mapped_column(String(88), unique=True)  # base64url


class Passkey(Base):
    """A passkey (v1.4): a WebAuthn credential of a player. Its id and public key are
    not secrets; the sign count grows with every sign-in (else a clone: refused)."""

    __tablename__ = "passkeys"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), index=True)
    credential_id: Mapped[str] = mapped_column(String(1400), unique=True)  # base64url
    public_key: Mapped[bytes] = mapped_column(LargeBinary)  # COSE
    sign_count: Mapped[int] = mapped_column(BigInteger)
    label: Mapped[str | None] = mapped_column(String(64), nullable=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    last_used_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    removed_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)


class PasskeyChallenge(Base):
    """A WebAuthn challenge issued (v1.4), kept as its SHA-256: used once, within five
    minutes, for its purpose (and, to register, by its player)."""

    __tablename__ = "passkey_challenges"
    challenge_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    purpose: Mapped[str] = mapped_column(String(16))
    player_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, index=True)
    used: Mapped[bool] = mapped_column(Boolean, default=False)


class Club(Base):
    """A club (v1.4, PROTOCOL.md "Clubs"): its name (unique as player names are compared),
    description, owner (null once nobody is left) and its current invitation code (kept
    as such since 0015: an invitation its leaders hand out, not a credential)."""

    __tablename__ = "clubs"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(32))
    name_key: Mapped[str] = mapped_column(String(64), unique=True)  # server.domain.names.name_key
    description: Mapped[str] = mapped_column(Text)
    owner_id: Mapped[int | None] = mapped_column(ForeignKey("players.id"), index=True)
    invite: Mapped[str | None] = mapped_column(String(32), unique=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class ClubMember(Base):
    """A member of a club (the owner too); the id orders members by joining. `leader`
    is the owner's naming (never set on the owner's own row)."""

    __tablename__ = "club_members"
    __table_args__ = (UniqueConstraint("club_id", "player_id"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    club_id: Mapped[int] = mapped_column(ForeignKey("clubs.id"))
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), index=True)
    leader: Mapped[bool] = mapped_column(Boolean, server_default=false())
    joined_at: Mapped[datetime] = mapped_column(UTCDateTime)


class CodeGuess(Base):
    """A wrong code (v1.4 "Clubs": `join_club` answered `not_found`, a `join` with a wrong
    entry code): guesses counted per player."""

    __tablename__ = "code_guesses"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[int] = mapped_column(Integer, index=True)
    at: Mapped[datetime] = mapped_column(UTCDateTime)
