"""Team battles (RECORD.md "Additions (v1.4): clubs and team battles"): the browser's
verifier (server/web/verify.js, in node) and the Python one give the same verdict, word
for word, on the battle bundles of tests/audit/test_battle.py: good ones (with an
amendment, an erasure, a club without entries), tampered ones (wrong score, order or
ranks, clubs missing or doubled, clubs on a bundle that is no battle, a record's club not
the battle's, a row's club not its record's) and unreadable ones."""

from __future__ import annotations

from pathlib import Path

from tests.audit.test_battle import CORPUS
from tests.web.support import require_node
from tests.web.test_js import js_verdicts, python_verdict


def test_both_verifiers_agree_on_battles(tmp_path: Path) -> None:
    node = require_node()
    js = js_verdicts(node, CORPUS, tmp_path)
    py = {name: python_verdict(doc) for name, doc in CORPUS.items()}
    differ = [(name, py[name], js[name]) for name in CORPUS if py[name] != js[name]]
    assert not differ, differ[:3]
    for name, verdict in py.items():
        kind = name.split(" ")[0]
        want = {"ok": verdict.get("ok") is True, "tampered": verdict.get("ok") is False}
        assert want.get(kind, "unreadable" in verdict), (name, verdict)
    assert any(line.startswith("battle: the 3 clubs'") for line in js["ok battle"]["checked"])
