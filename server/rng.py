"""samedeal-drbg-v1: the auditable generator (docs/GENERATOR.md).

block(i) = HMAC-SHA256(seed, label || 0x00 || uint64_be(i)); the stream is the
blocks in order. Uniform integers use 4-byte big-endian rejection sampling and
shuffles are Fisher–Yates from the end. Pure: no clock, no global state.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import struct
from collections.abc import Iterator, Sequence
from typing import TypeVar

T = TypeVar("T")

SEED_BYTES = 32
_WORDS = struct.Struct(">8I")  # one 32-byte HMAC block = 8 big-endian words


def new_seed() -> bytes:
    """32 fresh bytes from the operating system's CSPRNG."""
    return secrets.token_bytes(SEED_BYTES)


def commitment(seed: bytes) -> str:
    """The public commitment: sha256(seed) as 64 lowercase hex characters."""
    return hashlib.sha256(seed).hexdigest()


def parse_seed(seed_hex: str) -> bytes:
    """Seed bytes from 64 hex characters; ValueError on anything else."""
    if len(seed_hex) != 2 * SEED_BYTES:
        raise ValueError(f"a seed is {2 * SEED_BYTES} hex characters, got {len(seed_hex)}")
    return bytes.fromhex(seed_hex)


class Stream:
    """The byte stream of one (seed, label), read 4 bytes at a time."""

    __slots__ = ("_blocks", "_pos", "_words")

    def __init__(self, seed: bytes, label: str) -> None:
        self._blocks = _blocks(seed, label.encode("ascii"))
        self._words: tuple[int, ...] = ()
        self._pos = 0

    def u32(self) -> int:
        """The next 4 bytes as an unsigned big-endian integer (a block holds 8 of them)."""
        if self._pos == len(self._words):
            self._words = _WORDS.unpack(next(self._blocks))
            self._pos = 0
        self._pos += 1
        return self._words[self._pos - 1]

    def uniform(self, n: int) -> int:
        """Uniform integer in [0, n) without modulo bias."""
        if n <= 0:
            raise ValueError("uniform needs n >= 1")
        limit = (1 << 32) - ((1 << 32) % n)
        while True:
            x = self.u32()
            if x < limit:
                return x % n


def _blocks(seed: bytes, label: bytes) -> Iterator[bytes]:
    i = 0
    while True:
        yield hmac.new(seed, label + b"\x00" + i.to_bytes(8, "big"), hashlib.sha256).digest()
        i += 1


def shuffled(seed: bytes, label: str, items: Sequence[T]) -> list[T]:
    """A Fisher–Yates shuffle of items (from the end) on a fresh stream for label."""
    out = list(items)
    stream = Stream(seed, label)
    for i in range(len(out) - 1, 0, -1):
        j = stream.uniform(i + 1)
        out[i], out[j] = out[j], out[i]
    return out


def gaps_deal_label(attempt: int = 0) -> str:
    """`gaps/deal` for attempt 0 (every tournament but a winnable one), else `gaps/deal/a`."""
    return "gaps/deal" if attempt == 0 else f"gaps/deal/{attempt}"


def gaps_redeal_label(player_id: int, k: int) -> str:
    return f"gaps/redeal/{player_id}/{k}"


def klondike_deal_label(attempt: int) -> str:
    return f"klondike/deal/{attempt}"


BEACON_LABEL = b"samedeal/beacon/v1"


def beacon_deal_seed(seed: bytes, chain_hash: bytes, round_: int, randomness: bytes) -> bytes:
    """The deal seed of a tournament with a public beacon (RNG.md "Public beacon"): every label
    above is then read with it in place of the seed.

    HMAC-SHA256(seed, "samedeal/beacon/v1" || 0x00 || chain_hash (32 bytes) ||
    uint64_be(round) || randomness (32 bytes, sha256 of the round's signature))."""
    if len(chain_hash) != 32 or len(randomness) != 32:
        raise ValueError("a chain hash and a beacon's randomness are 32 bytes each")
    msg = BEACON_LABEL + b"\x00" + chain_hash + round_.to_bytes(8, "big") + randomness
    return hmac.new(seed, msg, hashlib.sha256).digest()
