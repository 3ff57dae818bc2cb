"""The account messages of protocol v1.4 (server/net/accounts_protocol.py): their models,
strict like v1's, which of them are public, and the DEVICE and PASSKEY objects of their
replies."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from pydantic import TypeAdapter, ValidationError

from server.domain.accounts import DeviceInfo, DeviceKind
from server.net import accounts_protocol as ap
from server.store.passkeys import PasskeyInfo

T0 = datetime(2026, 11, 30, 18, 0, tzinfo=UTC)
MESSAGE: TypeAdapter[Any] = TypeAdapter(ap.LinkStart | ap.PasskeyRegister | ap.RevokeDevice)


def test_every_account_message_has_its_own_type() -> None:
    kinds = {m.model_fields["type"].annotation.__args__[0] for m in ap.ACCOUNT_MESSAGES}  # type: ignore[union-attr]
    assert len(kinds) == len(ap.ACCOUNT_MESSAGES) == 13
    assert kinds > ap.OPEN_ACCOUNT_TYPES  # the public ones are account messages
    assert "delete_account" not in ap.OPEN_ACCOUNT_TYPES and "devices" not in ap.OPEN_ACCOUNT_TYPES


def test_the_models_parse_what_the_contract_sends() -> None:
    start = ap.LinkStart.model_validate({"type": "link_start", "id": 3})
    assert (start.id, start.label) == (3, None)
    added = ap.PasskeyRegister.model_validate(
        {"type": "passkey_register", "credential": {"id": "x", "response": {}}, "label": "phone"}
    )
    assert added.credential == {"id": "x", "response": {}} and added.label == "phone"
    assert ap.PasskeyOptions.model_validate({"type": "passkey_options", "purpose": "login"})


@pytest.mark.parametrize(
    "message",
    [
        {"type": "revoke_device", "device": 0},
        {"type": "revoke_device", "device": "3"},
        {"type": "link_start", "label": "x" * 257},
        {"type": "link_start", "label": "ok", "extra": True},
        {"type": "passkey_register", "credential": "not an object"},
        {"type": "passkey_register", "credential": {str(i): i for i in range(17)}},
    ],
)
def test_a_message_off_its_shape_is_refused(message: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        MESSAGE.validate_python(message)


def test_a_passkey_is_asked_for_registering_or_signing_in_only() -> None:
    with pytest.raises(ValidationError):
        ap.PasskeyOptions.model_validate({"type": "passkey_options", "purpose": "other"})


def test_a_device_brief_and_item() -> None:
    device = DeviceInfo(5, 1, DeviceKind.LINK, "phone", T0, T0 + timedelta(minutes=3))
    assert ap.device_brief(device) == {"id": 5, "label": "phone", "kind": "link"}
    assert ap.device_item(device, current=5) == {
        "id": 5,
        "label": "phone",
        "kind": "link",
        "created_at": "2026-11-30T18:00:00.000Z",
        "last_seen_at": "2026-11-30T18:03:00.000Z",
        "current": True,
    }
    assert ap.device_item(device, current=None)["current"] is False


def test_a_passkey_item_never_carries_its_key() -> None:
    used = PasskeyInfo(2, 1, "cred", b"cose", 4, None, T0, T0 + timedelta(days=1))
    assert ap.passkey_item(used) == {
        "id": 2,
        "label": None,
        "created_at": "2026-11-30T18:00:00.000Z",
        "last_used_at": "2026-12-01T18:00:00.000Z",
    }
    unused = PasskeyInfo(3, 1, "cred", b"cose", 0, "key", T0, None)
    assert ap.passkey_item(unused)["last_used_at"] is None
    assert "public_key" not in ap.passkey_item(unused) and "credential_id" not in ap.passkey_item(
        unused
    )
