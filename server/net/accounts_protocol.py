"""Pydantic models of the account messages of protocol v1.4 (PROTOCOL.md "Accounts"),
and their replies' shapes. protocol.py adds them to the client messages."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr

from server.domain import timing
from server.domain.accounts import DeviceInfo

MAX_ID = 2**31 - 1
MessageId = StrictStr | StrictInt
Label = Annotated[StrictStr, Field(max_length=256)]  # 1-64 characters: checked after


class _Msg(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    id: Annotated[MessageId, Field(union_mode="left_to_right")] | None = None


class DevicesRequest(_Msg):
    type: Literal["devices"]


class RevokeDevice(_Msg):
    type: Literal["revoke_device"]
    device: Annotated[StrictInt, Field(ge=1, le=MAX_ID)]


class RevokeOtherDevices(_Msg):
    type: Literal["revoke_other_devices"]


class LinkStart(_Msg):
    type: Literal["link_start"]
    label: Label | None = None


class LinkApprove(_Msg):
    type: Literal["link_approve"]
    code: Annotated[StrictStr, Field(max_length=64)]


class LinkInfo(_Msg):  # beyond the contract: what the approving device shows first
    type: Literal["link_info"]
    code: Annotated[StrictStr, Field(max_length=64)]


class LinkPoll(_Msg):
    type: Literal["link_poll"]
    poll: Annotated[StrictStr, Field(max_length=128)]


class DeleteAccount(_Msg):
    type: Literal["delete_account"]
    confirm: Annotated[StrictStr, Field(max_length=256)]


class PasskeyOptions(_Msg):
    type: Literal["passkey_options"]
    purpose: Literal["register", "login"]


Credential = Annotated[dict[StrictStr, Any], Field(max_length=16)]  # an object, else bad_request


class PasskeyRegister(_Msg):
    type: Literal["passkey_register"]
    credential: Credential
    label: Label | None = None


class PasskeyLogin(_Msg):
    type: Literal["passkey_login"]
    credential: Credential


class PasskeysRequest(_Msg):
    type: Literal["passkeys"]


class RemovePasskey(_Msg):
    type: Literal["remove_passkey"]
    passkey: Annotated[StrictInt, Field(ge=1, le=MAX_ID)]


ACCOUNT_MESSAGES = (
    DevicesRequest,
    RevokeDevice,
    RevokeOtherDevices,
    LinkStart,
    LinkApprove,
    LinkPoll,
    LinkInfo,
    DeleteAccount,
    PasskeyOptions,
    PasskeyRegister,
    PasskeyLogin,
    PasskeysRequest,
    RemovePasskey,
)
# public account messages (passkey_options of purpose `register` checks its own)
OPEN_ACCOUNT_TYPES = frozenset({"link_start", "link_poll", "passkey_options", "passkey_login"})
SIGNED_OUT = {"type": "signed_out"}


def device_brief(d: DeviceInfo) -> dict[str, Any]:
    """`device` of `registered` and `authed`."""
    return {"id": d.id, "label": d.label, "kind": d.kind.value}


def device_item(d: DeviceInfo, current: int | None) -> dict[str, Any]:
    """One item of `devices`."""
    return {
        **device_brief(d),
        "created_at": timing.iso(d.created_at),
        "last_seen_at": timing.iso(d.last_seen_at),
        "current": d.id == current,
    }


def passkey_item(p: Any) -> dict[str, Any]:
    """One item of `passkeys` (a store.passkeys.PasskeyInfo)."""
    used = p.last_used_at
    return {
        "id": p.id,
        "label": p.label,
        "created_at": timing.iso(p.created_at),
        "last_used_at": None if used is None else timing.iso(used),
    }
