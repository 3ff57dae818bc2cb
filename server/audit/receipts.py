"""Receipts: every entry's action log is a hash chain (samedeal-log/1, RECORD.md).

    h0  = SHA-256("samedeal-log/1\\n" + commitment + "\\n" + player_id)
    h_k = SHA-256(h_{k-1} || canonical({"seq": k, "at_ms": t, "action": A}))

A record carries `log_hash` = hex(h_n); a bundle carries `log_root`, the SHA-256 of the
lines "<player_id>:<log_hash>\\n" in ascending player id. A player who kept the
`log_hash` of an acknowledgement (seq k) holds a receipt: the published record's head
after k actions must equal it (`check_receipt`).

Pure and cheap: the server calls `step` once per accepted action, with the action's
canonical text (`server.domain.model.canonical_json`), which it has already made.
"""

from __future__ import annotations

import hashlib
import json
import reprlib
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from server.domain.model import LoggedAction, canonical_json
from server.domain.names import name_key
from server.i18n.said import said

LOG_FORMAT = "samedeal-log/1"

__all__ = [
    "LOG_FORMAT",
    "action_text",
    "check_bundle_receipt",
    "check_receipt",
    "extend",
    "genesis",
    "log_hash",
    "log_root",
    "record_of_player",
    "step",
]


def genesis(commitment: str, player_id: int) -> bytes:
    """h0 of a player's log in the tournament with this commitment (32 raw bytes)."""
    text = f"{LOG_FORMAT}\n{commitment.lower()}\n{int(player_id)}"
    return hashlib.sha256(text.encode("ascii")).digest()


def step(head: bytes, seq: int, at_ms: int, action_json: str) -> bytes:
    """The head after one more action. `action_json` is the action's canonical text:
    canonical({"seq", "at_ms", "action"}) sorts its keys as action, at_ms, seq, so the
    entry's canonical text is assembled around it without serialising again."""
    entry = f'{{"action":{action_json},"at_ms":{at_ms},"seq":{seq}}}'
    return hashlib.sha256(head + entry.encode()).digest()


def action_text(action: Mapping[str, Any]) -> str:
    """An action's canonical text. `canonical_json` (orjson) refuses what JSON allows but
    orjson does not (integers beyond 64 bits); the standard library writes those."""
    try:
        try:
            return canonical_json(action if isinstance(action, dict) else dict(action))
        except TypeError:
            return json.dumps(action, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    except RecursionError:  # nested past any real action: a malformed record
        raise ValueError(said("audit.receipt.too_deep")) from None


def extend(
    commitment: str,
    player_id: int,
    cached: str,
    after: int,
    actions: Iterable[LoggedAction],
    texts: Sequence[str] | None = None,
) -> bytes:
    """The one way a chain head is hashed on: from `cached`, the hex head after `after`
    actions ("" for none: the chain's start, h0), over the `actions` with a seq above
    `after` (those at or below are skipped; from h0 every action counts), in order.
    `texts`, when given, are the actions' canonical texts, aligned with `actions` (made
    already: not made again)."""
    head = bytes.fromhex(cached) if cached else genesis(commitment, player_id)
    done = after if cached else None
    for i, a in enumerate(actions):
        if done is None or a.seq > done:
            text = texts[i] if texts is not None else action_text(a.action)
            head = step(head, a.seq, a.at_ms, text)
    return head


def _chain(
    commitment: str, player_id: int, actions: Iterable[tuple[int, int, Mapping[str, Any]]]
) -> bytes:
    logged = (LoggedAction(seq, at_ms, dict(action)) for seq, at_ms, action in actions)
    return extend(commitment, player_id, "", 0, logged)


def log_hash(
    commitment: str, player_id: int, actions: Iterable[tuple[int, int, Mapping[str, Any]]]
) -> str:
    """hex(h_n) over (seq, at_ms, action) triples, each action as the record stores it."""
    return _chain(commitment, player_id, actions).hex()


def log_root(pairs: Iterable[tuple[int, str]]) -> str:
    """A bundle's `log_root` over (player_id, log_hash) pairs, in any order."""
    lines = "".join(f"{pid}:{h}\n" for pid, h in sorted(pairs, key=lambda p: p[0]))
    return hashlib.sha256(lines.encode("ascii")).hexdigest()


# -- receipts ------------------------------------------------------------------------
def _fields(record: Any) -> tuple[str, int, list[Any]]:
    """(commitment, player id, actions) of a record dict, or ValueError naming the gap."""
    if not isinstance(record, Mapping):
        raise ValueError(said("audit.receipt.not_record"))
    tournament, player, actions = (record.get(k) for k in ("tournament", "player", "actions"))
    commitment = tournament.get("commitment") if isinstance(tournament, Mapping) else None
    player_id = player.get("id") if isinstance(player, Mapping) else None
    if not isinstance(commitment, str):
        raise ValueError(said("audit.receipt.no_commitment"))
    if not isinstance(player_id, int) or isinstance(player_id, bool):
        raise ValueError(said("audit.receipt.no_player"))
    if not isinstance(actions, list):
        raise ValueError(said("audit.receipt.no_actions"))
    return commitment, player_id, actions


def _triple(entry: Any) -> tuple[int, int, Mapping[str, Any]]:
    if isinstance(entry, Mapping):
        seq, at_ms, action = entry.get("seq"), entry.get("at_ms"), entry.get("action")
        if (
            isinstance(seq, int)
            and isinstance(at_ms, int)
            and not isinstance(seq, bool)
            and not isinstance(at_ms, bool)
            and isinstance(action, Mapping)
        ):
            return seq, at_ms, action
    raise ValueError(said("audit.receipt.bad_entry", entry=reprlib.repr(entry)))


def check_receipt(record: Mapping[str, Any], seq: int, receipt: str) -> str | None:
    """None when the record's log after `seq` actions hashes to `receipt` (the hex
    `log_hash` of the acknowledgement of action `seq`; seq 0 is the join); otherwise
    one line saying what differs (a Said: server/i18n/said.py)."""
    if seq < 0:
        raise ValueError("a receipt's seq is 0 or more")
    try:
        commitment, player_id, actions = _fields(record)
        if len(actions) < seq:
            return said("audit.receipt.lacks", has=len(actions), seq=seq)
        head = _chain(commitment, player_id, (_triple(e) for e in actions[:seq])).hex()
    except ValueError as exc:
        return said("audit.receipt.malformed", why=exc.args[0] if len(exc.args) == 1 else str(exc))
    if head != receipt.lower():
        return said("audit.receipt.changed", seq=seq, head=head, receipt=receipt.lower())
    return None


def record_of_player(bundle: Mapping[str, Any], name: str) -> Mapping[str, Any] | None:
    """The bundle's record of the player called `name` (names compare case-insensitively)."""
    records = bundle.get("records")
    for record in records if isinstance(records, list) else []:
        if not isinstance(record, Mapping):
            continue
        player = record.get("player")
        got = player.get("name") if isinstance(player, Mapping) else None
        if isinstance(got, str) and name_key(got) == name_key(name):
            return record
    return None


def check_bundle_receipt(
    bundle: Mapping[str, Any], name: str, seq: int, receipt: str
) -> str | None:
    """`check_receipt` on the bundle's record of `name`; a missing record is a difference."""
    record = record_of_player(bundle, name)
    if record is None:
        return said("audit.receipt.no_record", name=repr(name))
    return check_receipt(record, seq, receipt)
