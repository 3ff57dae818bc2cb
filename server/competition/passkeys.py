"""Passkeys (v1.4, PROTOCOL.md "Accounts"): WebAuthn credentials made from a signed-in
device and used to sign in from anywhere without a name.

The ceremonies are checked by py_webauthn (the library named in the contract's spirit:
well kept, the WebAuthn spec's steps); this part adds what the contract asks beyond it:
challenges issued here, kept as hashes, used once and within five minutes (every
answer uses its challenge up, across nodes: one conditional update), `crossOrigin`
refused, a credential id of at most 1023 bytes that nobody holds, an attestation
statement of a format other than `none` not checked, a user handle that must be the
player's, and a sign count stored by a conditional update (a count that did not grow,
here or on another node, is a clone: refused).

py_webauthn (with cryptography, pyOpenSSL, cbor2: about 135 modules, a sixth of a node's)
is imported at the first ceremony, not when a node starts (tests/test_startup_imports.py).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import secrets
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

import orjson

from server.competition.devices import Devices, label_of
from server.competition.errors import CompetitionError
from server.competition.players import token_hash
from server.domain.accounts import DeviceInfo, DeviceKind, RelyingParty
from server.domain.model import PlayerInfo
from server.store import devices as stored_devices
from server.store import passkeys as stored
from server.store.passkeys import PasskeyInfo
from server.store.repository import Store

CHALLENGE_BYTES = 32  # at least 16
HANDLE_BYTES = 32  # a user handle: random bytes, at most 64
TIMEOUT_MS = 300_000
CHALLENGE_LIFE = timedelta(minutes=5)
MAX_CREDENTIAL_ID = 1023  # bytes
ALGORITHMS = [-7, -257]  # ES256, RS256 (COSE)
RP_NAME = "samedeal"
REGISTER, LOGIN = "register", "login"
TEXTS = {
    "refused": "the passkey was refused: {why}",
    "challenge": "its challenge is unknown, used already, older than five minutes or not yours",
    "no_rp": "no relying party: this connection sent no Host (serve --public-origin sets one)",
    "unknown": "no such passkey",
    "user": "the passkey's user handle is not its player's",
    "clone": "its sign count did not grow (a cloned authenticator?)",
    "taken": "this passkey is registered already",
    "cross_origin": "a ceremony from another origin's frame",
    "long_id": "a credential id of more than 1023 bytes",
    "no_passkey": "no passkey {id} of yours is in force",
    "signed_out": "this device was signed out",
}


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def unb64url(text: Any) -> bytes:
    """base64url (padding optional); ValueError for anything else."""
    if not isinstance(text, str) or len(text) > 1 << 20:
        raise ValueError("not base64url text")
    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError):
        raise ValueError("not base64url") from None


def _errors() -> tuple[type[Exception], ...]:
    """What a refused ceremony raises (the library's errors and malformed input)."""
    from webauthn.helpers.exceptions import WebAuthnException

    return (WebAuthnException, ValueError, TypeError, KeyError)


def _refused(why: str) -> CompetitionError:
    return CompetitionError(
        "unauthorized", TEXTS["refused"].format(why=why), reason="passkey_refused"
    )


def _client_data(credential: dict[str, Any]) -> dict[str, Any]:
    """The credential's clientDataJSON, parsed; `unauthorized` when it cannot be."""
    response = credential.get("response")
    try:
        if not isinstance(response, dict):
            raise ValueError("no response")
        data = orjson.loads(unb64url(response.get("clientDataJSON")))
    except (ValueError, orjson.JSONDecodeError):
        raise _refused("clientDataJSON is not readable") from None
    if not isinstance(data, dict):
        raise _refused("clientDataJSON is not an object")
    return data


def _without_attestation(credential: dict[str, Any]) -> dict[str, Any]:
    """The registration with its attestation statement read as format `none` (a
    statement of another format is not checked: the contract asks for none)."""
    from webauthn.helpers import parse_cbor
    from webauthn.helpers.encode_cbor import encode_cbor
    from webauthn.helpers.exceptions import WebAuthnException

    response = credential.get("response")
    if not isinstance(response, dict):
        return credential
    try:
        attestation = parse_cbor(unb64url(response.get("attestationObject")))
    except (ValueError, WebAuthnException):
        return credential  # the library says why
    if not isinstance(attestation, dict) or attestation.get("fmt") == "none":
        return credential
    plain = {"fmt": "none", "attStmt": {}, "authData": attestation.get("authData", b"")}
    return {**credential, "response": {**response, "attestationObject": b64url(encode_cbor(plain))}}


class Passkeys:
    """Passkeys made, listed, removed; sign-ins with them."""

    def __init__(self, store: Store, devices: Devices, now: Callable[[], datetime]) -> None:
        self.store = store
        self.devices = devices
        self.now = now

    # -- options ---------------------------------------------------------------------
    async def register_options(self, player: PlayerInfo, rp: RelyingParty | None) -> Any:
        """PublicKeyCredentialCreationOptionsJSON for a new passkey of `player`."""
        from webauthn import generate_registration_options, options_to_json
        from webauthn.helpers.structs import (
            AttestationConveyancePreference,
            AuthenticatorSelectionCriteria,
            PublicKeyCredentialDescriptor,
            ResidentKeyRequirement,
            UserVerificationRequirement,
        )

        rp = self._rp(rp)
        challenge = await self._issue(REGISTER, player.id)
        handle = await stored.handle_of(
            self.store, player.id, b64url(secrets.token_bytes(HANDLE_BYTES))
        )
        held = await stored.in_force(self.store, player.id)
        options = generate_registration_options(
            rp_id=rp.id,
            rp_name=RP_NAME,
            user_name=player.name,
            user_id=unb64url(handle),
            challenge=challenge,
            timeout=TIMEOUT_MS,
            attestation=AttestationConveyancePreference.NONE,
            authenticator_selection=AuthenticatorSelectionCriteria(
                resident_key=ResidentKeyRequirement.REQUIRED,
                require_resident_key=True,
                user_verification=UserVerificationRequirement.PREFERRED,
            ),
            exclude_credentials=[
                PublicKeyCredentialDescriptor(id=unb64url(p.credential_id)) for p in held
            ],
            supported_pub_key_algs=ALGORITHMS,  # type: ignore[arg-type]
        )
        return orjson.loads(options_to_json(options))

    async def login_options(self, rp: RelyingParty | None) -> Any:
        """PublicKeyCredentialRequestOptionsJSON: any of this RP's passkeys (no name)."""
        from webauthn import generate_authentication_options, options_to_json
        from webauthn.helpers.structs import UserVerificationRequirement

        rp = self._rp(rp)
        challenge = await self._issue(LOGIN, None)
        options = generate_authentication_options(
            rp_id=rp.id,
            challenge=challenge,
            timeout=TIMEOUT_MS,
            allow_credentials=[],
            user_verification=UserVerificationRequirement.PREFERRED,
        )
        json = orjson.loads(options_to_json(options))
        json["allowCredentials"] = []
        return json

    async def _issue(self, purpose: str, player_id: int | None) -> bytes:
        challenge = secrets.token_bytes(CHALLENGE_BYTES)
        digest = hashlib.sha256(challenge).hexdigest()
        await stored.issue(self.store, digest, purpose, player_id, self.now())
        return challenge

    @staticmethod
    def _rp(rp: RelyingParty | None) -> RelyingParty:
        if rp is None:
            raise CompetitionError("bad_request", TEXTS["no_rp"])
        return rp

    async def _use_challenge(
        self, credential: dict[str, Any], purpose: str, player_id: int | None
    ) -> bytes:
        """The challenge the credential answers, used up now; `unauthorized` unless it
        was issued here for `purpose` (to `player_id`) under five minutes ago, unused."""
        data = _client_data(credential)
        try:
            challenge = unb64url(data.get("challenge"))
        except ValueError:
            raise _refused("no challenge") from None
        digest = hashlib.sha256(challenge).hexdigest()
        since = self.now() - CHALLENGE_LIFE
        if not await stored.use(self.store, digest, purpose, player_id, since):
            raise _refused(TEXTS["challenge"])
        if data.get("crossOrigin", False) is not False:
            raise _refused(TEXTS["cross_origin"])
        return challenge

    # -- the ceremonies ----------------------------------------------------------------
    async def register(
        self,
        player: PlayerInfo,
        credential: dict[str, Any],
        label: str | None,
        rp: RelyingParty | None,
    ) -> PasskeyInfo:
        """A new passkey of `player` from a RegistrationResponseJSON; `unauthorized`
        when the ceremony is refused (its challenge used up all the same)."""
        from webauthn import verify_registration_response

        label = label_of(label)
        rp = self._rp(rp)
        challenge = await self._use_challenge(credential, REGISTER, player.id)
        try:
            verified = verify_registration_response(
                credential=_without_attestation(credential),
                expected_challenge=challenge,
                expected_rp_id=rp.id,
                expected_origin=list(rp.origins),
                require_user_verification=False,
                supported_pub_key_algs=ALGORITHMS,  # type: ignore[arg-type]
            )
        except _errors() as e:
            raise _refused(str(e)[:200]) from None
        if len(verified.credential_id) > MAX_CREDENTIAL_ID:
            raise _refused(TEXTS["long_id"])
        added = await stored.add(
            self.store,
            player.id,
            b64url(verified.credential_id),
            verified.credential_public_key,
            verified.sign_count,
            label,
            self.now(),
        )
        if added is None:
            raise _refused(TEXTS["taken"])
        return added

    async def login(
        self, credential: dict[str, Any], rp: RelyingParty | None
    ) -> tuple[PlayerInfo, DeviceInfo, str]:
        """The passkey's player, a new device of kind `passkey` (labelled as the
        passkey) and its token; `unauthorized` when the ceremony is refused."""
        from webauthn import verify_authentication_response

        rp = self._rp(rp)
        challenge = await self._use_challenge(credential, LOGIN, None)
        try:
            raw_id = b64url(unb64url(credential.get("rawId", credential.get("id"))))
        except ValueError:
            raise _refused("no credential id") from None
        found = await stored.by_credential(self.store, raw_id)
        if found is None:
            raise _refused(TEXTS["unknown"])
        passkey, player = found
        await self._check_user(credential, player)
        try:
            verified = verify_authentication_response(
                credential=credential,
                expected_challenge=challenge,
                expected_rp_id=rp.id,
                expected_origin=list(rp.origins),
                credential_public_key=passkey.public_key,
                credential_current_sign_count=passkey.sign_count,
                require_user_verification=False,
            )
        except _errors() as e:
            raise _refused(str(e)[:200]) from None
        now = self.now()
        count = verified.new_sign_count
        if not await stored.used(self.store, passkey.id, passkey.sign_count, count, now):
            raise _refused(TEXTS["clone"])
        token = secrets.token_urlsafe(32)
        device = await stored_devices.add(
            self.store, player.id, token_hash(token), DeviceKind.PASSKEY, passkey.label, now
        )
        if not await stored.in_force_by_id(self.store, passkey.id):
            # removed (or its account deleted, which removes passkeys before it revokes
            # devices) while this sign-in was in flight: its device goes too
            await stored_devices.revoke(self.store, player.id, [device.id], None, now)
            raise _refused(TEXTS["unknown"])
        return player, device, token

    async def _check_user(self, credential: dict[str, Any], player: PlayerInfo) -> None:
        response = credential.get("response")
        sent = response.get("userHandle") if isinstance(response, dict) else None
        if sent is None:
            return
        handle = await stored.handle(self.store, player.id)
        try:
            same = handle is not None and unb64url(sent) == unb64url(handle)
        except ValueError:
            same = False
        if not same:
            raise _refused(TEXTS["user"])

    # -- the player's own passkeys -----------------------------------------------------
    async def listed(self, player: PlayerInfo) -> list[PasskeyInfo]:
        return await stored.in_force(self.store, player.id)

    async def remove(self, player: PlayerInfo, passkey_id: int) -> None:
        """Remove one of the player's passkeys in force (`not_found` otherwise)."""
        if not await stored.remove(self.store, player.id, passkey_id, self.now()):
            raise CompetitionError(
                "not_found",
                TEXTS["no_passkey"].format(id=passkey_id),
                reason="no_passkey",
                params={"id": passkey_id},
            )
