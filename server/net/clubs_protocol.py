"""Pydantic models of the club messages of protocol v1.4 (PROTOCOL.md "Clubs"), and the
CLUB object they answer. protocol.py adds them to the client messages."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr

from server.domain import timing
from server.domain.clubs import PAGE_MAX, ClubInfo, leads

MAX_ID = 2**31 - 1
MessageId = StrictStr | StrictInt
ClubId = Annotated[StrictInt, Field(ge=1, le=MAX_ID)]
Name = Annotated[StrictStr, Field(max_length=256)]  # the rule is checked after (names.py)
Offset = Annotated[StrictInt, Field(ge=0, le=MAX_ID)]
Limit = Annotated[StrictInt, Field(ge=1, le=PAGE_MAX)]


class _Msg(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    id: Annotated[MessageId, Field(union_mode="left_to_right")] | None = None


class CreateClub(_Msg):
    type: Literal["create_club"]
    name: Name
    description: Annotated[StrictStr, Field(max_length=4000)] | None = None  # 500: after


class ClubsRequest(_Msg):
    type: Literal["clubs"]
    offset: Offset = 0
    limit: Limit = PAGE_MAX
    mine: StrictBool = False


class ClubRequest(_Msg):
    type: Literal["club"]
    club: ClubId
    offset: Offset = 0
    limit: Limit = PAGE_MAX


class JoinClub(_Msg):
    type: Literal["join_club"]
    code: StrictStr  # any length (the frame bounds it): a wrong one is `not_found`, counted


class LeaveClub(_Msg):
    type: Literal["leave_club"]
    club: ClubId


class SetOwner(_Msg):
    type: Literal["set_owner"]
    club: ClubId
    player: Name


class KickMember(_Msg):
    type: Literal["kick_member"]
    club: ClubId
    player: Name


class NewInvite(_Msg):
    type: Literal["new_invite"]
    club: ClubId


class SetLeader(_Msg):
    type: Literal["set_leader"]
    club: ClubId
    player: Name
    leader: StrictBool


CLUB_MESSAGES = (
    CreateClub,
    ClubsRequest,
    ClubRequest,
    JoinClub,
    LeaveClub,
    SetOwner,
    KickMember,
    NewInvite,
    SetLeader,
)
OPEN_CLUB_TYPES = frozenset({"clubs", "club"})  # public (`mine: true` checks its own)


def club_object(c: ClubInfo) -> dict[str, Any]:
    """CLUB as its asker sees it: `invite`, the current code, only for its owner and
    leaders (null once the club has nobody left)."""
    out: dict[str, Any] = {
        "id": c.id,
        "name": c.name,
        "description": c.description,
        "owner": c.owner,
        "leaders": list(c.leaders),
        "members": c.members,
        "created_at": timing.iso(c.created_at),
        "role": None if c.role is None else c.role.value,
    }
    if leads(c.role):
        out["invite"] = c.invite
    if c.member_names is not None:
        out["member_names"] = list(c.member_names)
    return out
