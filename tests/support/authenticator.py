"""A software WebAuthn authenticator and client for protocol tests (the browser tests
use Chromium's virtual authenticator): it answers creation and request options in the
Level 3 JSON forms, as a browser's `toJSON()` writes them, with an ES256 key; every
field a test wants to spoil can be spoiled."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import struct
from dataclasses import dataclass, field
from typing import Any

import cbor2
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec

UP, UV, AT = 0x01, 0x04, 0x40


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass
class SoftAuthenticator:
    """One passkey: a resident ES256 credential; `counting` False for an authenticator
    whose sign count stays 0 (as synced passkeys' do)."""

    counting: bool = True
    key: ec.EllipticCurvePrivateKey = field(
        default_factory=lambda: ec.generate_private_key(ec.SECP256R1())
    )
    credential_id: bytes = field(default_factory=lambda: os.urandom(16))
    sign_count: int = 0
    user_handle: str | None = None
    rp_id: str = ""

    def _cose(self) -> bytes:
        numbers = self.key.public_key().public_numbers()
        return cbor2.dumps(
            {
                1: 2,
                3: -7,
                -1: 1,
                -2: numbers.x.to_bytes(32, "big"),
                -3: numbers.y.to_bytes(32, "big"),
            }
        )

    def create(
        self,
        options: dict[str, Any],
        origin: str,
        *,
        kind: str = "webauthn.create",
        challenge: str | None = None,
        cross_origin: bool = False,
        rp_id: str | None = None,
        flags: int = UP | UV | AT,
        fmt: str = "none",
    ) -> dict[str, Any]:
        """RegistrationResponseJSON answering `options` (PublicKeyCredentialCreationOptionsJSON)."""
        self.rp_id = rp_id or options["rp"]["id"]
        self.user_handle = options["user"]["id"]
        client = self._client_data(kind, challenge or options["challenge"], origin, cross_origin)
        if self.counting:
            self.sign_count += 1
        cred = self.credential_id
        auth = (
            hashlib.sha256(self.rp_id.encode()).digest()
            + bytes([flags])
            + struct.pack(">I", self.sign_count)
            + bytes(16)  # AAGUID
            + struct.pack(">H", len(cred))
            + cred
            + self._cose()
        )
        statement: dict[str, Any] = {}
        if fmt != "none":  # a self-attestation nobody checks (the contract: not checked)
            statement = {"alg": -7, "sig": b"\x00" * 8}
        attestation = cbor2.dumps({"fmt": fmt, "attStmt": statement, "authData": auth})
        return {
            "id": b64(cred),
            "rawId": b64(cred),
            "type": "public-key",
            "response": {
                "clientDataJSON": b64(client),
                "attestationObject": b64(attestation),
                "transports": ["internal"],
            },
            "authenticatorAttachment": "platform",
            "clientExtensionResults": {},
        }

    def get(
        self,
        options: dict[str, Any],
        origin: str,
        *,
        kind: str = "webauthn.get",
        challenge: str | None = None,
        cross_origin: bool = False,
        flags: int = UP | UV,
        count: int | None = None,
        user_handle: str | None = None,
    ) -> dict[str, Any]:
        """AuthenticationResponseJSON answering `options` (...RequestOptionsJSON)."""
        client = self._client_data(kind, challenge or options["challenge"], origin, cross_origin)
        if count is not None:
            self.sign_count = count
        elif self.counting:
            self.sign_count += 1
        rp_id = options.get("rpId") or self.rp_id
        auth = (
            hashlib.sha256(rp_id.encode()).digest()
            + bytes([flags])
            + struct.pack(">I", self.sign_count)
        )
        signature = self.key.sign(auth + hashlib.sha256(client).digest(), ec.ECDSA(hashes.SHA256()))
        return {
            "id": b64(self.credential_id),
            "rawId": b64(self.credential_id),
            "type": "public-key",
            "response": {
                "clientDataJSON": b64(client),
                "authenticatorData": b64(auth),
                "signature": b64(signature),
                "userHandle": user_handle or self.user_handle,
            },
            "authenticatorAttachment": "platform",
            "clientExtensionResults": {},
        }

    @staticmethod
    def _client_data(kind: str, challenge: str, origin: str, cross_origin: bool) -> bytes:
        data = {"type": kind, "challenge": challenge, "origin": origin, "crossOrigin": cross_origin}
        return json.dumps(data).encode()
