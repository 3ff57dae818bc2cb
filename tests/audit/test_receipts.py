"""samedeal-log/1 receipts against the contract's vectors (tests/data/log-chain-v1.json)."""

from __future__ import annotations

import copy
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from server.audit import receipts
from server.domain.model import canonical_json
from server.i18n.said import speak

VECTORS = json.loads((Path(__file__).parents[1] / "data" / "log-chain-v1.json").read_text())
CHAINS: list[dict[str, Any]] = VECTORS["chains"]


def triples(chain: dict[str, Any]) -> list[tuple[int, int, dict[str, Any]]]:
    return [(a["seq"], a["at_ms"], a["action"]) for a in chain["actions"]]


@pytest.mark.parametrize("chain", CHAINS, ids=lambda c: f"player{c['player_id']}")
def test_every_head_of_the_vector_chains(chain: dict[str, Any]) -> None:
    heads = chain["heads"]
    assert len(heads) == len(chain["actions"]) + 1
    head = receipts.genesis(chain["commitment"], chain["player_id"])
    assert head.hex() == heads[0]
    for k, a in enumerate(chain["actions"], start=1):
        head = receipts.step(head, a["seq"], a["at_ms"], canonical_json(a["action"]))
        assert head.hex() == heads[k], f"head {k}"
    assert receipts.log_hash(chain["commitment"], chain["player_id"], triples(chain)) == heads[-1]


def test_the_vector_chains_cover_both_games() -> None:
    kinds = {a["action"]["kind"] for c in CHAINS for a in c["actions"]}
    assert {"move", "redeal", "draw"} <= kinds


def test_the_vector_root() -> None:
    root = VECTORS["root"]
    pairs = [(int(pid), h) for pid, h in root["heads_by_player"].items()]
    assert receipts.log_root(pairs) == root["root"]
    assert receipts.log_root(reversed(pairs)) == root["root"]  # any order in, id order out
    # ascending by number, not by text: 83 before 221 before 1610
    lines = "".join(f"{p}:{h}\n" for p, h in sorted(pairs))
    assert hashlib.sha256(lines.encode()).hexdigest() == root["root"]
    assert receipts.log_root(sorted(pairs, key=lambda p: str(p[0]))) == root["root"]


def test_step_is_sha256_of_the_head_and_the_entry_canonical_text() -> None:
    head = receipts.genesis("AB" * 32, 5)
    assert head == hashlib.sha256(b"samedeal-log/1\n" + b"ab" * 32 + b"\n5").digest()
    action = {"to": [0, 1], "kind": "move", "card": "2H", "note": "caf\u00e9"}
    entry = {"seq": 3, "at_ms": 41, "action": action}
    text = json.dumps(entry, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    assert "\\u00e9" in text
    assert (
        receipts.step(head, 3, 41, canonical_json(action))
        == hashlib.sha256(head + text.encode()).digest()
    )


def test_an_action_orjson_refuses_still_hashes() -> None:
    big = {"kind": "move", "n": 2**70}
    assert receipts.action_text(big) == '{"kind":"move","n":1180591620717411303424}'


def record(chain: dict[str, Any]) -> dict[str, Any]:
    return {
        "format": "samedeal-record/1",
        "tournament": {"commitment": chain["commitment"]},
        "player": {"id": chain["player_id"], "name": "alice"},
        "actions": copy.deepcopy(chain["actions"]),
    }


@pytest.mark.parametrize("chain", CHAINS, ids=lambda c: f"player{c['player_id']}")
def test_every_acknowledgement_is_a_receipt_the_record_honours(chain: dict[str, Any]) -> None:
    rec = record(chain)
    for k, head in enumerate(chain["heads"]):
        assert receipts.check_receipt(rec, k, head) is None
    assert receipts.check_receipt(rec, 2, chain["heads"][2].upper()) is None


def test_a_changed_or_shortened_log_breaks_a_receipt() -> None:
    chain = CHAINS[0]
    k = 10
    receipt = chain["heads"][k]
    rec = record(chain)
    rec["actions"][k - 1]["at_ms"] += 1
    why = receipts.check_receipt(rec, k, receipt)
    assert why is not None and "acknowledged log was changed" in why and receipt in why
    assert receipts.check_receipt(rec, k - 1, chain["heads"][k - 1]) is None  # prefix intact
    rec = record(chain)
    del rec["actions"][k:]
    assert receipts.check_receipt(rec, k, receipt) is None
    why = receipts.check_receipt(rec, k + 1, chain["heads"][k + 1])
    assert why is not None and "lacks acknowledged actions" in why
    other = dict(record(chain), player={"id": chain["player_id"] + 1, "name": "alice"})
    assert receipts.check_receipt(other, k, receipt) is not None


def test_receipt_on_a_malformed_record_or_a_bundle() -> None:
    chain = CHAINS[0]
    assert "malformed" in (receipts.check_receipt({"actions": []}, 0, chain["heads"][0]) or "")
    rec = record(chain)
    rec["actions"][0] = {"seq": "1"}
    assert "malformed" in (receipts.check_receipt(rec, 1, chain["heads"][1]) or "")
    with pytest.raises(ValueError):
        receipts.check_receipt(record(chain), -1, chain["heads"][0])
    bundle = {"records": [record(chain)]}
    assert receipts.check_bundle_receipt(bundle, "ALICE", 5, chain["heads"][5]) is None
    assert "no record of 'bob'" in (
        receipts.check_bundle_receipt(bundle, "bob", 5, chain["heads"][5]) or ""
    )


def test_a_record_nested_past_any_action_is_malformed_not_a_crash() -> None:
    deep: dict[str, object] = {"kind": "move"}
    for _ in range(5000):
        deep = {"x": deep}
    record = {
        "tournament": {"commitment": "ab" * 32},
        "player": {"id": 1},
        "actions": [{"seq": 1, "at_ms": 0, "action": deep}],
    }
    said = receipts.check_receipt(record, 1, "00" * 32)
    assert said is not None and "malformed" in said


def test_the_differences_are_said_again_in_a_language() -> None:
    chain = CHAINS[0]
    malformed = receipts.check_receipt({"actions": []}, 0, chain["heads"][0])
    assert (
        speak("es", malformed or "")
        == "el registro está mal formado: falta el compromiso del torneo"
    )
    lacks = receipts.check_receipt(record(chain), len(chain["heads"]) + 5, chain["heads"][0])
    assert speak("pt-BR", lacks or "").startswith("faltam ações confirmadas no registro")
    rec = record(chain)
    rec["actions"][0] = {"seq": "1"}
    entry = receipts.check_receipt(rec, 1, chain["heads"][1])
    assert (speak("es", entry or "")).startswith(
        "el registro está mal formado: una entrada de acción"
    )
    none = receipts.check_bundle_receipt({"records": []}, "bob", 1, chain["heads"][1])
    assert speak("pt-PT", none or "") == "o pacote não tem registo de 'bob'"
