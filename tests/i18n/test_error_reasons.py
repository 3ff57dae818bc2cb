"""Errors a client can say in its language (docs/PROTOCOL.md, "Errors"): every `error`
reply keeps its code and English message and carries `reason`, a key of the catalogues
(`reason.<reason>`), and `params`; every reason the server can give is in the catalogue."""

from __future__ import annotations

import re
from pathlib import Path

from server import i18n
from server.competition import club_events
from server.net import access, protocol
from tests.support.harness import create_msg, running_server

ROOT = Path(__file__).resolve().parents[2]


def _reasons_in_source() -> set[str]:
    found: set[str] = set(protocol.ERROR_CODES)
    for path in (ROOT / "server").rglob("*.py"):
        text = path.read_text()
        found |= set(re.findall(r'reason="([a-z_]+)"', text))
        found |= set(re.findall(r'(?:IllegalAction|MalformedAction)\(\s*"([a-z_]+)"', text))
    return found | set(club_events.TEXTS) | set(access.TEXTS)  # v1.4: reasons by name


def test_every_reason_and_code_is_in_the_catalogue() -> None:
    english = i18n.catalogue("en")
    reasons = _reasons_in_source()
    assert {"not_blocked", "wrong_card", "no_tournament", "bad_name"} <= reasons
    missing = sorted(r for r in reasons if f"reason.{r}" not in english)
    assert not missing, missing
    from server.domain import conditions

    for name in conditions.KNOWN:
        assert f"reason.condition_{name}" in english, name
    assert not [c for c in protocol.ERROR_CODES if f"error.{c}" not in english]


async def test_error_replies_carry_reason_and_params(sqlite_url: str) -> None:
    async with running_server(sqlite_url) as srv, srv.client() as c:
        reply = await c.send_raw("{nope")
        assert (reply["code"], reply["reason"], reply["params"]) == ("bad_request", "not_json", {})
        reply = await c.err("bad_request", type="register", name="a b")
        assert reply["reason"] == "bad_name" and reply["message"]
        assert reply["params"] == {"why": "character", "character": "' '"}
        await c.ok(type="register", name="João")
        reply = await c.err("name_taken", type="register", name="joão")
        assert reply["reason"] == "name_taken" and reply["params"] == {"name": "joão"}
        text = i18n.translate("pt-BR", "reason." + reply["reason"], **reply["params"])
        assert text == "O nome joão já está em uso."
        reply = await c.err("not_found", type="join", tournament=999)
        assert reply["reason"] == "no_tournament" and reply["params"] == {"id": 999}
        assert i18n.translate("es", "reason.no_tournament", **reply["params"]) == (
            "No existe el torneo 999."
        )
        op = await srv.admin()
        created = await op.ok(**create_msg())  # type: ignore[no-untyped-call]
        tid = created["tournament"]["id"]
        await c.ok(type="join", tournament=tid)
        reply = await c.err(
            "illegal_action", type="act", tournament=tid, seq=1, action={"kind": "redeal"}
        )
        assert reply["reason"] == "not_blocked" and reply["params"] == {}
        assert i18n.translate("pt-PT", "reason.not_blocked").startswith("Só pode redistribuir")
        resign = {"kind": "resign"}
        reply = await c.err("out_of_sync", type="act", tournament=tid, seq=5, action=resign)
        assert reply["reason"] == "out_of_sync" and reply["params"] == {"seq": 1}
        assert reply["seq"] == 1  # the contract's field stays


def test_a_bad_name_says_what_is_wrong_with_it_in_every_language() -> None:
    """`bad_name`'s params name what is wrong (the length, the character, the alphabets
    mixed) and each language says it through `reason.bad_name.<why>`, as much as the
    English message says."""
    from server.domain import names
    from server.i18n import terminal

    cases = {
        "x" * 40: ({"why": "length", "length": 40, "max": 32}, "40"),
        "ana@b": ({"why": "character", "character": "'@'"}, "'@'"),
        "pаvel": ({"why": "scripts", "scripts": "Cyrillic + Latin"}, "Cyrillic + Latin"),
    }
    for name, (params, shown) in cases.items():
        try:
            names.normalise(name)
        except names.BadName as exc:
            assert exc.params == params, name
            reply = {"reason": "bad_name", "params": exc.params, "message": str(exc)}
        else:
            raise AssertionError(f"{name!r} passed")
        for lang in ("pt-BR", "pt-PT", "es"):
            terminal.choose(lang)
            try:
                said = terminal.error_text(reply)
            finally:
                terminal.choose("en")
            assert shown in said and said != i18n.translate(lang, "reason.bad_name"), said
