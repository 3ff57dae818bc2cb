"""The verifier on tournaments with a public beacon: real rounds of both League of Entropy
networks and keyed test networks; a wrong round, signature, chain or network is a
difference naming the beacon; `samedeal verify --beacon-networks FILE`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from client_cli import verify as cli
from server.audit import drand
from server.audit.untrusted import ReadLimits
from server.audit.verify import verify_bundle_file, verify_document
from tests.support.beacon import KEYED_NETWORKS, beacon_documents

DOCS = beacon_documents()
NETWORKS = drand.networks_from_json(KEYED_NETWORKS)
WHAT = {"quicknet": "beacon round 1000 of 'quicknet'", "default": "beacon round 72785 of 'default'"}


@pytest.mark.parametrize("network", ["quicknet", "default"])
def test_a_beacon_bundle_and_record_verify(network: str) -> None:
    for doc in (DOCS[f"beacon {network}"], DOCS[f"beacon {network}: record"]):
        report = verify_document(doc)
        assert report.ok, report.error
        assert report.checked[1] == (
            f"tournament 7: {WHAT[network]} verifies against the network's public key; "
            "the deals come from its deal seed"
        )


@pytest.mark.parametrize(
    ("change", "fragment"),
    [
        ("next round", "round {n1} of '{net}': the signature does not verify"),
        ("signature flipped", "the signature is not a point of"),
        ("signature cut", "the signature is"),
        ("signature not hex", "the signature is not hex"),
        ("no signature", ": no signature"),
        ("chain", ": chain_hash"),
        ("other network", "is not the network's"),
        ("unknown network", "unknown beacon network 'mainnet'"),
        ("round 0", "not a round number"),
        ("round before the start", "it comes before the start (the rule gives round {n1}"),
        ("removed", "illegal action"),  # played on the beacon's deal seed, not the seed
    ],
)
@pytest.mark.parametrize("network", ["quicknet", "default"])
def test_a_wrong_beacon_is_a_difference(network: str, change: str, fragment: str) -> None:
    n = 1000 if network == "quicknet" else 72785
    report = verify_document(DOCS[f"beacon {network}: {change}"])
    assert not report.ok
    assert fragment.format(n1=n + 1, net=network) in (report.error or ""), report.error
    if change != "removed":
        assert report.error and report.error.startswith("tournament 7: ")


def test_a_chained_round_with_a_wrong_or_missing_previous_signature() -> None:
    report = verify_document(DOCS["beacon default: previous flipped"])
    assert report.error and report.error.endswith(
        "does not verify against the network's public key"
    )
    report = verify_document(DOCS["beacon default: no previous"])
    assert report.error and report.error.endswith("needs its previous_signature")


def test_a_void_tournament_has_a_note() -> None:
    report = verify_document(DOCS["beacon quicknet: void"])
    assert report.ok
    assert report.notes == [
        "tournament 7: beacon round 1000 of 'quicknet' was never verified: "
        "the tournament was void, no game dealt"
    ]


@pytest.mark.parametrize("name", sorted(KEYED_NETWORKS))
def test_a_test_network_needs_its_file(name: str) -> None:
    doc = DOCS[f"beacon {name}"]
    assert verify_document(doc).error == f"tournament 7: unknown beacon network '{name}'"
    assert verify_document(doc, networks=NETWORKS).ok


def test_the_command_takes_beacon_networks(tmp_path: Path) -> None:
    doc = tmp_path / "bundle.json"
    doc.write_text(json.dumps(DOCS["beacon samedeal-test"]))
    nets = tmp_path / "networks.json"
    nets.write_text(json.dumps(KEYED_NETWORKS))
    out = tmp_path / "out.txt"
    with out.open("w") as f:
        assert cli.run(str(doc), out=f) == cli.EXIT_MISMATCH
    assert "FAIL tournament 7: unknown beacon network 'samedeal-test'" in out.read_text()
    with out.open("w") as f:
        assert cli.run(str(doc), out=f, networks=str(nets)) == cli.EXIT_OK
    assert "of 'samedeal-test' verifies against the network's public key" in out.read_text()


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        (None, "cannot open the networks file"),
        ("[]", "a networks file is a JSON object"),
        ('{"quicknet": {}}', "built in and cannot be replaced"),
        ("{", "the networks file"),
    ],
)
def test_a_bad_networks_file_is_unreadable(
    tmp_path: Path, content: str | None, fragment: str
) -> None:
    doc = tmp_path / "bundle.json"
    doc.write_text(json.dumps(DOCS["beacon quicknet"]))
    nets = tmp_path / "networks.json"
    if content is not None:
        nets.write_text(content)
    out = tmp_path / "out.txt"
    with out.open("w") as f:
        assert cli.run(str(doc), out=f, networks=str(nets)) == cli.EXIT_UNREADABLE
    text = out.read_text()
    assert text.startswith("unreadable: ") and fragment in text, text


def test_the_command_line_flag(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from client_cli.__main__ import main

    doc = tmp_path / "bundle.json"
    doc.write_text(json.dumps(DOCS["beacon samedeal-test-chained"]))
    nets = tmp_path / "networks.json"
    nets.write_text(json.dumps(KEYED_NETWORKS))
    assert main(["verify", str(doc), "--beacon-networks", str(nets)]) == 0
    assert "verified: " in capsys.readouterr().out


@pytest.mark.parametrize("network", ["quicknet", "default"])
def test_a_streamed_bundle_checks_the_beacon_as_one_read_whole(
    network: str, tmp_path: Path
) -> None:
    """Streamed, the records' count is not known when the tournament is read: a void
    bundle (no records) has its note, and a record under an unsigned round is refused."""
    every = ReadLimits(stream_from=0)
    n = 1000 if network == "quicknet" else 72785
    for name in (f"beacon {network}", f"beacon {network}: void", f"beacon {network}: no signature"):
        path = tmp_path / "b.json"
        path.write_text(json.dumps(DOCS[name]))
        streamed, _ = verify_bundle_file(str(path), every)
        whole = verify_document(DOCS[name])
        assert (streamed.ok, streamed.error) == (whole.ok, whole.error), name
        if name.endswith("void"):
            assert streamed.ok and any("never verified" in note for note in streamed.notes)
        if name.endswith("no signature"):
            assert streamed.error == f"tournament 7: beacon round {n} of '{network}': no signature"
