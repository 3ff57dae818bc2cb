"""samedeal-drbg-v1 against the independent vectors (tests/data/drbg-v1.json)."""

from __future__ import annotations

from pathlib import Path

import pytest

from server import rng
from server.games import cards
from tests.conftest import DATA

SHARED = Path(__file__).resolve().parents[2] / "shared" / "vectors"


def test_vector_copies_match_shared_when_present() -> None:
    if not SHARED.is_dir():
        return  # a user's clone has no ../shared: the copies are the reference
    for src in SHARED.glob("*.json"):
        assert (DATA / src.name).read_bytes() == src.read_bytes(), src.name


def test_every_vector_case_reproduced(drbg_vectors) -> None:
    assert drbg_vectors["spec"] == "samedeal-drbg-v1"
    assert len(drbg_vectors["cases"]) == 3
    for case in drbg_vectors["cases"]:
        seed = rng.parse_seed(case["seed"])
        assert rng.commitment(seed) == case["commitment"]
        stream = rng.Stream(seed, "test")
        assert [stream.u32() for _ in range(8)] == case["u32_label_test_first8"]
        stream = rng.Stream(seed, "test")
        assert [stream.uniform(52) for _ in range(8)] == case["uniform52_label_test_first8"]
        deck = rng.shuffled(seed, "gaps/deal", cards.DECK)
        assert [cards.code(c) for c in deck] == case["shuffled_deck_label_gaps_deal"]


def test_uniform_rejects_biased_values() -> None:
    class Fixed(rng.Stream):
        def __init__(self, values: list[int]) -> None:
            self.values = iter(values)

        def u32(self) -> int:
            return next(self.values)

    # n = 3: limit = 2^32 - (2^32 mod 3) = 4294967295; 4294967295 itself is rejected.
    assert Fixed([4294967295, 7]).uniform(3) == 1
    assert Fixed([4294967294]).uniform(3) == 4294967294 % 3
    with pytest.raises(ValueError):
        Fixed([]).uniform(0)


def test_stream_crosses_block_boundaries() -> None:
    seed = bytes(32)
    stream = rng.Stream(seed, "test")
    words = [stream.u32() for _ in range(20)]  # 80 bytes: 3 blocks
    import hashlib
    import hmac

    raw = b"".join(
        hmac.new(seed, b"test\x00" + i.to_bytes(8, "big"), hashlib.sha256).digest()
        for i in range(3)
    )
    assert words == [int.from_bytes(raw[4 * k : 4 * k + 4], "big") for k in range(20)]


def test_labels() -> None:
    assert rng.gaps_deal_label() == "gaps/deal"
    assert rng.gaps_redeal_label(42, 2) == "gaps/redeal/42/2"
    assert rng.klondike_deal_label(3) == "klondike/deal/3"


def test_new_seed_is_32_random_bytes() -> None:
    a, b = rng.new_seed(), rng.new_seed()
    assert len(a) == 32 and a != b
    with pytest.raises(ValueError):
        rng.parse_seed("abcd")


def test_card_codes() -> None:
    assert cards.code(0) == "AC" and cards.code(1) == "2C" and cards.code(51) == "KS"
    assert cards.parse("10H") == cards.parse("TH") == cards.parse("th") == cards.parse("T♥")
    assert cards.parse("Q♠") == cards.parse("QS")
    for bad in ("", "1H", "ZZ", "10", "HT", "2X"):
        with pytest.raises(cards.BadCard):
            cards.parse(bad)
