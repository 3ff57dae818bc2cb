"""The verifier's check lines in the reader's language (issue 37): `samedeal verify --lang`
says every "ok" and "note" line through the catalogue (server/i18n/said.py), and the
browser's verifier (server/web/said.js, node here) says the very same words in the same
language; in English both stay the verifier's own words, word for word."""

from __future__ import annotations

import io
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from client_cli import verify as verify_cli
from server import i18n
from server.audit.untrusted import LIMITS, ReadLimits
from server.audit.verify import verify_document
from server.i18n import terminal
from server.i18n.said import Said, speak
from tests.support.beacon import beacon_documents
from tests.web.support import JS_TESTS, ROOT, require_node

CASES = json.loads((ROOT / "tests" / "data" / "verify-cases-v1.json").read_text())["cases"]
DOCS = {c["name"]: c["document"] for c in CASES if c["expect"] == "ok"}
FAILS = {c["name"]: c["document"] for c in CASES if c["expect"] == "fail"}
# A bad beacon's reason (server/audit/drand.py's BeaconError), said inside its difference.
BEACONS = beacon_documents()
BAD_BEACONS = {
    "beacon quicknet: next round": "the signature does not verify",
    "beacon quicknet: signature flipped": "the signature is not a point of",
    "beacon default: no previous": "of a chained network needs",
}
ENGLISH_WORDS = (
    "replay legally",
    "equals the commitment",
    "carry no receipts",
    "carries no receipts",
    "record of",
    "follow from the results",
    "actions",
)


def _cli_lines(path: Path, lang: str) -> list[str]:
    terminal.choose(lang)
    try:
        out = io.StringIO()
        assert verify_cli.run(str(path), out) == verify_cli.EXIT_OK
        return out.getvalue().splitlines()
    finally:
        terminal.choose("en")


@pytest.mark.parametrize("lang", ["pt-BR", "pt-PT", "es"])
def test_samedeal_verify_says_its_checks_in_the_language(tmp_path: Path, lang: str) -> None:
    name = next(n for n, d in DOCS.items() if d.get("format") == "samedeal-bundle/1")
    path = tmp_path / "bundle.json"
    path.write_text(json.dumps(DOCS[name]))
    report = verify_document(DOCS[name])
    assert report.checked and report.notes
    assert all(isinstance(line, Said) for line in [*report.checked, *report.notes])
    english = _cli_lines(path, "en")
    assert english[: len(report.checked)] == [f"ok   {line}" for line in report.checked]
    lines = _cli_lines(path, lang)
    checks = [line for line in lines if not line.startswith(("verified", "verificado"))]
    assert len(checks) == len(report.checked) + len(report.notes)
    for line in checks:
        assert not any(w in line for w in ENGLISH_WORDS), (lang, line)
    said = [speak(lang, line) for line in [*report.checked, *report.notes]]
    assert [line.split(" ", 1)[1].strip() for line in checks] == said


def test_the_browsers_verifier_says_the_same_words(tmp_path: Path) -> None:
    """Its check lines and its difference (every tampered document of the corpus): the
    English word for word, and the same words in the language."""
    node = require_node()
    paths = []
    docs = [*DOCS.values(), *FAILS.values(), *(BEACONS[n] for n in BAD_BEACONS)]
    for i, doc in enumerate(docs):
        paths.append(tmp_path / f"doc{i}.json")
        paths[-1].write_text(json.dumps(doc))
    for lang in ("pt-PT", "es"):
        catalogue = tmp_path / f"{lang}.json"
        catalogue.write_bytes(i18n.messages_json(lang))
        run = subprocess.run(
            [
                node,
                str(JS_TESTS / "verify_cli.mjs"),
                "--catalogue",
                str(catalogue),
                *map(str, paths),
            ],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=ROOT,
        )
        assert run.returncode == 0, run.stderr[-2000:]
        for doc, line in zip(docs, run.stdout.splitlines(), strict=True):
            js: dict[str, Any] = json.loads(line)
            report = verify_document(doc)
            assert js["checked"] == report.checked  # the English, word for word
            assert js["error"] == report.error
            want = [speak(lang, x) for x in [*report.checked, *report.notes]]
            assert js["spoken"] == want, lang
            if report.error is None:
                assert want != [*report.checked, *report.notes]
                continue
            assert isinstance(report.error, Said)
            assert js["spoken_error"] == speak(lang, report.error) != report.error, lang
            if any(w in report.error for w in BAD_BEACONS.values()):
                beacon_reason = report.error.rsplit(": ", 1)[1]
                assert beacon_reason not in js["spoken_error"], (lang, js["spoken_error"])


TAMPERED = next(c["document"] for c in CASES if c["name"].startswith("bundle standings with two"))


@pytest.mark.parametrize(
    ("lang", "fail", "words"),
    [
        ("es", "FALLO ", ("de la clasificación es", "los registros dan")),
        ("pt-BR", "FALHA ", ("da classificação é", "os registros dão")),
    ],
)
def test_samedeal_verify_says_the_difference_in_the_language(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], lang: str, fail: str, words: tuple[str, ...]
) -> None:
    """A tampered bundle (two standings rows swapped): `samedeal verify --lang` says its
    FAIL line, naming the very row and values, in the language; English stays the
    verifier's own words."""
    from client_cli.__main__ import main

    path = tmp_path / "tampered.json"
    path.write_text(json.dumps(TAMPERED))
    report = verify_document(TAMPERED)
    assert isinstance(report.error, Said) and report.error.startswith("standings row ")
    try:
        assert main(["--lang", lang, "verify", str(path)]) == verify_cli.EXIT_MISMATCH
        said_line = [x for x in capsys.readouterr().out.splitlines() if x.startswith(fail)]
        assert main(["--lang", "en", "verify", str(path)]) == verify_cli.EXIT_MISMATCH
        english = [x for x in capsys.readouterr().out.splitlines() if x.startswith("FAIL ")]
    finally:
        terminal.choose("en")
    assert english == [f"FAIL {report.error}"]
    assert said_line == [fail + speak(lang, report.error)]
    assert all(w in said_line[0] for w in words), said_line
    assert "standings row" not in said_line[0] and "the records give" not in said_line[0]


def test_samedeal_verify_says_why_a_file_is_unreadable_in_the_language(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The JSON reader's reasons (server/audit/untrusted.py) are `Said`s too."""
    from client_cli.__main__ import main

    empty, twice = tmp_path / "empty.json", tmp_path / "twice.json"
    empty.write_text("  \n")
    twice.write_text('{"a": 1, "a": 2}')
    try:
        assert main(["--lang", "es", "verify", str(empty)]) == verify_cli.EXIT_UNREADABLE
        assert main(["--lang", "pt-PT", "verify", str(twice)]) == verify_cli.EXIT_UNREADABLE
    finally:
        terminal.choose("en")
    out = capsys.readouterr().out
    assert f"{empty}: el archivo está vacío (no hay JSON en él)" in out
    assert f"{twice}: um objeto tem a chave 'a' duas vezes" in out


def _node_verifies(tmp_path: Path, lang: str, doc: dict[str, Any]) -> dict[str, Any]:
    node = require_node()
    catalogue, path = tmp_path / f"{lang}.json", tmp_path / "doc.json"
    catalogue.write_bytes(i18n.messages_json(lang))
    path.write_text(json.dumps(doc))
    run = subprocess.run(
        [node, str(JS_TESTS / "verify_cli.mjs"), "--catalogue", str(catalogue), str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    out: dict[str, Any] = json.loads(run.stdout)
    return out


def test_an_illegal_move_says_the_games_reason_in_the_language(tmp_path: Path) -> None:
    """A tampered record's illegal move: the difference says the game's own reason
    through its `reason.*` key (es), in both verifiers; English keeps the game's words."""
    doc = json.loads(
        json.dumps(next(d for d in DOCS.values() if d["tournament"]["game"] == "gaps"))
    )
    doc["actions"][0]["action"] = {"kind": "move", "card": "KS", "to": [0, 0]}
    report = verify_document(doc)
    assert isinstance(report.error, Said) and "illegal action" in report.error
    spoken = speak("es", report.error)
    reason = next(
        k
        for k in i18n.catalogue("en")
        if k.startswith("reason.") and i18n.translate("es", k) in spoken
    )
    assert "illegal action" not in spoken and i18n.translate("en", reason) not in report.error
    js = _node_verifies(tmp_path, "es", doc)
    assert js["error"] == report.error and js["spoken_error"] == spoken


@pytest.mark.parametrize(("lang", "words"), [("es", "la firma no se verifica con la clave")])
def test_samedeal_verify_says_a_bad_beacons_reason_in_the_language(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], lang: str, words: str
) -> None:
    """A bundle whose beacon signature is not the round's: the FAIL line says why (the
    BeaconError's reason, not only the difference around it) in the language."""
    from client_cli.__main__ import main

    path = tmp_path / "beacon.json"
    path.write_text(json.dumps(BEACONS["beacon quicknet: next round"]))
    try:
        assert main(["--lang", lang, "verify", str(path)]) == verify_cli.EXIT_MISMATCH
        out = capsys.readouterr().out
    finally:
        terminal.choose("en")
    fail = [x for x in out.splitlines() if x.startswith("FALLO ")]
    assert fail == [
        "FALLO torneo 7: ronda 1001 del beacon 'quicknet': la firma no se verifica con la "
        "clave pública de la red"
    ]
    assert words in fail[0] and "signature" not in fail[0]


def test_a_bad_networks_file_is_said_in_the_language(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`samedeal verify --beacon-networks FILE` with a network whose period is wrong: the
    network's own reason is said in the language, its name as the file has it."""
    from client_cli.__main__ import main

    doc, nets = tmp_path / "bundle.json", tmp_path / "networks.json"
    doc.write_text(json.dumps(BEACONS["beacon quicknet"]))
    nets.write_text(json.dumps({"mine": {"scheme": "bls-unchained-g1-rfc9380", "period": 0}}))
    try:
        main(["--lang", "pt-PT", "verify", str(doc), "--beacon-networks", str(nets)])
        out, err = capsys.readouterr()
    finally:
        terminal.choose("en")
    assert "rede 'mine': period não é um inteiro positivo" in out + err, out + err
    assert "positive integer" not in out + err


def _unreadable_line(path: Path, lang: str, limits: ReadLimits = LIMITS) -> str:
    terminal.choose(lang)
    try:
        out = io.StringIO()
        assert verify_cli.run(str(path), out, limits=limits) == verify_cli.EXIT_UNREADABLE
        return out.getvalue()
    finally:
        terminal.choose("en")


def test_a_malformed_record_is_said_in_the_language_keeping_pydantics_words(
    tmp_path: Path,
) -> None:
    """ "record is malformed": the frame in the language, the field path and pydantic's
    detail as the file and pydantic have them (docs/I18N.md); a limit in the language."""
    doc = json.loads(json.dumps(next(d for d in DOCS.values() if "actions" in d)))
    doc["actions"] = "x"
    path = tmp_path / "record.json"
    path.write_text(json.dumps(doc))
    english = _unreadable_line(path, "en")
    assert "record is malformed: actions: Input should be a valid list" in english
    assert "registro mal formado: actions: Input should be a valid list" in _unreadable_line(
        path, "es"
    )
    doc["actions"] = [{"seq": 1}] * 3
    path.write_text(json.dumps(doc))
    few = ReadLimits(max_actions=2)
    assert "record is malformed: 3 actions, the limit is 2" in _unreadable_line(path, "en", few)
    assert "registro malformado: 3 ações, o limite é 2" in _unreadable_line(path, "pt-BR", few)


def test_the_streaming_readers_reasons_are_said_in_the_language(tmp_path: Path) -> None:
    """A bundle over `stream_from` (lowered here, not 8 MiB written) is read a record at
    a time (`JsonStream`): its reasons are `Said`s too."""
    path = tmp_path / "bundle.json"
    path.write_text('{"format": "samedeal-bundle/1", "records": [' + " " * 64)
    small = ReadLimits(stream_from=16)
    assert "not JSON: the file ends too soon" in _unreadable_line(path, "en", small)
    said_es = _unreadable_line(path, "es", small)
    assert "no es JSON: el archivo termina antes de tiempo" in said_es, said_es
    path.write_text('{"format": "samedeal-bundle/1", "records": [1]}}' + " " * 64)
    said_pt = _unreadable_line(path, "pt-PT", small)
    assert "não é JSON: há dados a mais depois do documento" in said_pt, said_pt


@pytest.mark.parametrize(
    ("change", "lang"),
    [
        ({"actions": "x"}, "es"),
        ({"tournament": {"id": 1}}, "pt-PT"),
        ({"format": "samedeal-bundle/1", "records": 3}, "pt-BR"),
    ],
)
def test_the_browsers_reader_says_why_a_document_is_unreadable_the_same_way(
    tmp_path: Path, change: dict[str, Any], lang: str
) -> None:
    """server/web/shapes.js, the browser twin of the Python reader: the same English, the
    same sentence in the language (pydantic's detail kept as it is)."""
    from server.audit.untrusted import Unreadable

    doc = {**next(d for d in DOCS.values() if "actions" in d), **change}
    with pytest.raises(Unreadable) as caught:
        verify_document(doc)
    english = caught.value.args[0]
    assert isinstance(english, Said) and " is malformed: " in english
    js = _node_verifies(tmp_path, lang, doc)
    assert js["unreadable"] == english
    assert js["spoken_unreadable"] == speak(lang, english) != english
    assert "is malformed" not in js["spoken_unreadable"]
