"""Pydantic models of every client message of protocol v1 (docs/PROTOCOL.md), and replies."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import (
    AwareDatetime,
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
    TypeAdapter,
)

from server.competition.live_game import Snapshot
from server.competition.standings.reading import AROUND, MAX_AROUND, MAX_PAGE, MAX_TOP, TOP, View
from server.domain import timing, tournament_options
from server.domain.club_events import ANONYMOUS, EventFields, Viewer, fields_of
from server.domain.model import TournamentInfo
from server.domain.ranking import Row, Unranked
from server.net.accounts_protocol import (
    ACCOUNT_MESSAGES,
    DeleteAccount,
    DevicesRequest,
    LinkApprove,
    LinkInfo,
    LinkPoll,
    LinkStart,
    PasskeyLogin,
    PasskeyOptions,
    PasskeyRegister,
    PasskeysRequest,
    RemovePasskey,
    RevokeDevice,
    RevokeOtherDevices,
)
from server.net.clubs_protocol import (
    CLUB_MESSAGES,
    ClubRequest,
    ClubsRequest,
    CreateClub,
    JoinClub,
    KickMember,
    LeaveClub,
    NewInvite,
    SetLeader,
    SetOwner,
)

ERROR_CODES = (
    "bad_request",
    "unauthorized",
    "forbidden",
    "not_found",
    "name_taken",
    "illegal_action",
    "out_of_sync",
    "not_open",
    "closed",
    "not_revealed",
    "rate_limited",
    "internal",
    "authorization_pending",  # v1.4 accounts
    "expired",
)
MAX_ID = 2**31 - 1
TournamentId = Annotated[StrictInt, Field(ge=1, le=MAX_ID)]
ClubRef = Annotated[StrictInt, Field(ge=1, le=MAX_ID)]  # v1.4: a club's id
MessageId = StrictStr | StrictInt


class _Msg(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    id: Annotated[MessageId, Field(union_mode="left_to_right")] | None = None


class Register(_Msg):
    type: Literal["register"]
    name: Annotated[StrictStr, Field(max_length=64)]
    bot: StrictBool = False  # a bot plays but is never rated
    device: Annotated[StrictStr, Field(max_length=256)] | None = None  # v1.4: its label


class Auth(_Msg):
    type: Literal["auth"]
    token: Annotated[StrictStr, Field(max_length=256)]


class TournamentsRequest(_Msg):
    type: Literal["tournaments"]


class CreateTournament(_Msg):
    type: Literal["create_tournament"]
    name: tournament_options.TournamentName
    game: Annotated[StrictStr, Field(max_length=32)]
    options: dict[str, Any] | None = None
    starts_at: AwareDatetime | None = None
    ends_at: AwareDatetime
    time_limit_s: tournament_options.TimeLimitS | None = None
    join_until: AwareDatetime | None = None
    beacon: dict[str, Any] | None = None  # {"network": N}: a public beacon
    conditions: dict[str, Any] | None = None  # entry conditions (checked by domain/conditions)
    rated: StrictBool | None = None  # None: an admin's true, a leader's false (access)
    club: ClubRef | None = None  # v1.4 club events (PROTOCOL.md "Clubs (v1.4)")
    visibility: Literal["public", "unlisted"] = "public"
    entry_code: Annotated[StrictStr, Field(max_length=64)] | None = None  # 4-32: after
    battle: dict[str, Any] | None = None  # {"clubs": [ID...], "counted": N} (domain)


class CloseTournament(_Msg):
    type: Literal["close_tournament"]
    tournament: TournamentId


class Join(_Msg):
    type: Literal["join"]
    tournament: TournamentId
    code: Annotated[StrictStr, Field(max_length=64)] | None = None  # v1.4 entry code
    club: ClubRef | None = None  # v1.4: the club a battle's entry plays for


class State(_Msg):
    type: Literal["state"]
    tournament: TournamentId


class Act(_Msg):
    type: Literal["act"]
    tournament: TournamentId
    seq: Annotated[StrictInt, Field(ge=1, le=MAX_ID)]
    action: dict[str, Any]


class Hint(_Msg):
    type: Literal["hint"]
    tournament: TournamentId


class Subscribe(_Msg):
    type: Literal["subscribe"]
    tournament: TournamentId
    top: Annotated[StrictInt, Field(ge=0, le=MAX_TOP)] = TOP
    around: Annotated[StrictInt, Field(ge=0, le=MAX_AROUND)] = AROUND


class StandingsPage(_Msg):
    type: Literal["standings_page"]
    tournament: TournamentId
    offset: Annotated[StrictInt, Field(ge=0, le=MAX_ID)] = 0
    limit: Annotated[StrictInt, Field(ge=1, le=MAX_PAGE)] = MAX_PAGE


class Unsubscribe(_Msg):
    type: Literal["unsubscribe"]
    tournament: TournamentId


class RecordRequest(_Msg):
    type: Literal["record"]
    tournament: TournamentId
    player: Annotated[StrictStr, Field(max_length=64)]


class Ping(_Msg):
    type: Literal["ping"]


class LeaderboardRequest(_Msg):  # public
    type: Literal["leaderboard"]
    game: Annotated[StrictStr, Field(max_length=32)]
    offset: Annotated[StrictInt, Field(ge=0, le=MAX_ID)] = 0
    limit: Annotated[StrictInt, Field(ge=1, le=MAX_PAGE)] = MAX_PAGE


class PlayerRequest(_Msg):  # public
    type: Literal["player"]
    name: Annotated[StrictStr, Field(max_length=64)]


class Disqualify(_Msg):  # the operator's
    type: Literal["disqualify"]
    tournament: TournamentId
    player: Annotated[StrictStr, Field(max_length=64)]
    reason: Annotated[StrictStr, Field(max_length=1000)]


class FairplayReport(_Msg):  # beyond the contract, admin: the organiser's report
    type: Literal["fairplay_report"]
    tournament: TournamentId
    moves: Annotated[StrictInt, Field(ge=1, le=10_000)] = 20


# -- schedules: handlers in net/schedule_session.py ---------------------------
class SchedulesRequest(_Msg):  # public
    type: Literal["schedules"]


class CreateSchedule(_Msg):  # admin
    type: Literal["create_schedule"]
    name: tournament_options.TournamentName
    game: Annotated[StrictStr, Field(max_length=32)]
    options: dict[str, Any] | None = None
    first_starts_at: AwareDatetime
    every_s: Annotated[StrictInt, Field(ge=60, le=366 * 86400)]
    duration_s: Annotated[StrictInt, Field(ge=1, le=31 * 86400)]
    time_limit_s: tournament_options.TimeLimitS | None = None
    join_for_s: Annotated[StrictInt, Field(ge=0, le=31 * 86400)] | None = None
    conditions: dict[str, Any] | None = None
    rated: StrictBool | None = None  # v1.4: default false in a non-admin's club event
    beacon: dict[str, Any] | None = None
    club: ClubRef | None = None  # v1.4 club events (PROTOCOL.md "Clubs (v1.4)")
    visibility: Literal["public", "unlisted"] = "public"
    entry_code: Annotated[StrictStr, Field(max_length=64)] | None = None  # 4-32: after


class CancelSchedule(_Msg):  # admin
    type: Literal["cancel_schedule"]
    schedule: Annotated[StrictInt, Field(ge=1, le=MAX_ID)]


SERIES_MESSAGES = (SchedulesRequest, CreateSchedule, CancelSchedule)


ClientMessage = Annotated[
    Register
    | Auth
    | TournamentsRequest
    | CreateTournament
    | CloseTournament
    | Join
    | State
    | Act
    | Hint
    | Subscribe
    | StandingsPage
    | Unsubscribe
    | RecordRequest
    | Ping
    | LeaderboardRequest
    | PlayerRequest
    | Disqualify
    | FairplayReport
    | SchedulesRequest
    | CreateSchedule
    | CancelSchedule
    | DevicesRequest
    | RevokeDevice
    | RevokeOtherDevices
    | LinkStart
    | LinkApprove
    | LinkPoll
    | LinkInfo
    | DeleteAccount
    | PasskeyOptions
    | PasskeyRegister
    | PasskeyLogin
    | PasskeysRequest
    | RemovePasskey
    | CreateClub
    | ClubsRequest
    | ClubRequest
    | JoinClub
    | LeaveClub
    | SetOwner
    | KickMember
    | NewInvite
    | SetLeader,
    Field(discriminator="type"),
]
CLIENT_MESSAGE: TypeAdapter[Any] = TypeAdapter(ClientMessage)
MESSAGE_TYPES = frozenset(
    m.model_fields["type"].annotation.__args__[0]  # type: ignore[union-attr]
    for m in (
        Register,
        Auth,
        TournamentsRequest,
        CreateTournament,
        CloseTournament,
        Join,
        State,
        Act,
        Hint,
        Subscribe,
        StandingsPage,
        Unsubscribe,
        RecordRequest,
        Ping,
        LeaderboardRequest,
        PlayerRequest,
        Disqualify,
        FairplayReport,
        *SERIES_MESSAGES,
        *ACCOUNT_MESSAGES,
        *CLUB_MESSAGES,
    )
)


# -- replies -----------------------------------------------------------------
def error(
    re: Any,
    code: str,
    message: str,
    *,
    reason: str | None = None,
    params: Mapping[str, Any] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """An `error` reply: the code and English message of the contract, and (beyond it,
    docs/PROTOCOL.md) `reason`, a stable key a client says in its language
    (`reason.<reason>` in the catalogues; the code when no finer one is given), with
    `params`."""
    assert code in ERROR_CODES, code
    return {
        "type": "error",
        "re": re,
        "code": code,
        "message": message,
        "reason": reason or code,
        "params": dict(params or {}),
        **extra,
    }


def summary(t: TournamentInfo, seed: str | None, viewer: Viewer = ANONYMOUS) -> dict[str, Any]:
    """A tournament SUMMARY as `viewer` sees it; `seed` only once closed."""
    out: dict[str, Any] = {
        "id": t.id,
        "name": t.name,
        "game": t.game,
        "options": t.options,
        "commitment": t.commitment,
        "starts_at": timing.iso(t.starts_at),
        "ends_at": timing.iso(t.ends_at),
        "time_limit_s": t.time_limit_s,
        "join_until": timing.iso(t.join_until),
        "status": t.status,
        "entrants": t.entrants,
        "deal_attempt": t.deal_attempt,
        "guaranteed": t.guaranteed,
        "beacon": t.beacon,
        "void": t.void,
        "created_at": timing.iso(t.created_at),
        "schedule": t.schedule_id,
        "occurrence": t.occurrence,
        "conditions": t.conditions,
        "rated": t.rated,
        **club_fields(fields_of(t), viewer),  # v1.4
    }
    if seed is not None:
        out["seed"] = seed
    if t.closed_at is not None:  # a project addition: when it closed (early or at ends_at)
        out["closed_at"] = timing.iso(t.closed_at)
    return out


def club_fields(event: EventFields, viewer: Viewer, battle: bool = True) -> dict[str, Any]:
    """A SUMMARY's (SCHEDULE's: no `battle`) v1.4 fields: `club`, `battle`, `visibility`,
    `code_required`, and `entry_code` only for whom domain/club_events.Viewer says."""
    out: dict[str, Any] = {"club": event.club_id}
    if battle:
        out["battle"] = event.battle
    out["visibility"] = event.visibility
    out["code_required"] = event.entry_code is not None
    if event.entry_code is not None and viewer.sees_code(event):
        out["entry_code"] = event.entry_code
    return out


def state_message(snap: Snapshot, re: Any = None) -> dict[str, Any]:
    out: dict[str, Any] = {
        "type": "state",
        "re": re,
        "tournament": snap.tournament_id,
        "game": snap.game,
        "seq": snap.seq,
        "status": snap.status,
        "started_at": snap.started_iso,
        "deadline": snap.deadline_iso,
        "time_ms": snap.time_ms,
        "progress": snap.progress,
        "view": snap.view,
        "events": snap.events,
        "log_hash": snap.log_hash,
    }
    if snap.duplicate:
        out["duplicate"] = True
    return out


def closed_message(tournament_id: int, seed: str, log_root: str) -> dict[str, Any]:
    """The reveal (v1.2): the seed and the root of the tournament's receipts."""
    return {"type": "closed", "tournament": tournament_id, "seed": seed, "log_root": log_root}


def standings_message(tournament_id: int, view: View) -> dict[str, Any]:
    """A `standings` message (v1.1): the rows of a window or page, the number of entrants,
    the standings' version, and the server's time the running clocks were read at; and,
    when a window leaves rows out between its top and the rows around the player,
    `gap_after` (the number of rows before the gap); a team battle's `clubs` (v1.4)."""
    message = {
        "type": "standings",
        "tournament": tournament_id,
        "final": view.final,
        "total": view.total,
        "version": view.version,
        "server_time": timing.iso_of_epoch_ms(view.now_ms),
        "rows": [standing_row(r, view.par, view.club_of) for r in view.rows],
    }
    if view.gap_after is not None:
        message["gap_after"] = view.gap_after
    if view.clubs is not None:
        message["clubs"] = view.clubs
    return message


def standing_row(
    r: Row, par: Mapping[str, tuple[int, int]] | None, club_of: Mapping[str, int | None] | None
) -> dict[str, Any]:
    """A standings row (`row_of`) with, after the close (`par` not None), its `par` (null
    until computed), and in a team battle (`club_of`) its entry's `club`."""
    row = row_of(r)
    if par is not None:
        got = par.get(r.player)
        row["par"] = None if got is None else {"progress": got[0], "resets": got[1]}
    if club_of is not None:
        row["club"] = club_of.get(r.player)
    return row


def row_of(r: Row) -> dict[str, Any]:
    """A standings row; a disqualified one has rank None and `disqualified`."""
    row = {
        "rank": r.rank,
        "player": r.player,
        "status": r.status,
        "progress": r.progress,
        "resets": r.resets,
        "time_ms": r.time_ms,
        "score": r.score,
        "bot": r.bot,
    }
    if isinstance(r, Unranked):
        row["disqualified"] = r.disqualified
    return row
