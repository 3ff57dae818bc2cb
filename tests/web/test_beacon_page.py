"""The browser's beacon verifier in real Chromium, on the /verify page: the contract's 16
real drand rounds verify there, the 6 tampered are refused, the 8 derivations give the
same deal seeds and Gaps layouts; beacon bundles dropped on the page get the Python
verifier's verdict and words."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from server.audit.verify import verify_document
from tests.conftest import load_vector
from tests.support.beacon import beacon_documents
from tests.support.harness import Running
from tests.web.conftest import new_page, shot

CHECK_VECTORS = """async (v) => {
  const beacon = await import("/static/beacon.js");
  const { hexToBytes, bytesToHex } = await import("/static/drbg.js");
  const { dealGrid, formatGrid } = await import("/static/gaps.js");
  const roundOf = (e) => ({ round: e.round, signature: hexToBytes(e.signature),
    previousSignature: e.previous_signature ? hexToBytes(e.previous_signature) : null });
  const out = { verified: [], refused: [], derived: [] };
  const net = (e) => beacon.BUILT_IN[e.network];
  for (const e of v.rounds) {
    try { await beacon.verifyRound(net(e), roundOf(e)); out.verified.push(true); }
    catch (exc) { out.verified.push(String(exc)); }
  }
  for (const e of v.rejected) {
    try { await beacon.verifyRound(net(e), roundOf(e)); out.refused.push(null); }
    catch (exc) { out.refused.push(exc instanceof beacon.BeaconError ? exc.message : String(exc)); }
  }
  for (const d of v.derivations) {
    const e = v.rounds.find((r) => r.network === d.network && r.round === d.round);
    const seed = await beacon.dealSeed(hexToBytes(d.secret), net(d), roundOf(e));
    out.derived.push({ deal_seed: bytesToHex(seed), rows: formatGrid(await dealGrid(seed)) });
  }
  return out;
}"""


async def test_the_vectors_in_the_browser(browser: Any, server: Running) -> None:
    errors: list[str] = []
    page = await new_page(browser, errors)
    await page.goto(f"{server.http}/verify")
    v = load_vector("drand-rounds-v1.json")
    got = await page.evaluate(CHECK_VECTORS, v)
    assert got["verified"] == [True] * 16
    assert len(got["refused"]) == 6
    assert all(isinstance(m, str) and m.startswith("the signature ") for m in got["refused"])
    assert got["derived"] == [
        {"deal_seed": d["deal_seed"], "rows": d["gaps_deal_rows"]} for d in v["derivations"]
    ]
    assert not errors, errors


async def test_beacon_bundles_dropped_on_the_verify_page(
    browser: Any, server: Running, tmp_path: Path
) -> None:
    docs = beacon_documents()
    errors: list[str] = []
    page = await new_page(browser, errors)
    await page.goto(f"{server.http}/verify")
    for name in [
        "beacon quicknet",
        "beacon default",
        "beacon quicknet: next round",
        "beacon default: previous flipped",
        "beacon quicknet: chain",
    ]:
        path = tmp_path / (name.replace(" ", "_").replace(":", "") + ".json")
        path.write_text(json.dumps(docs[name]))
        await page.set_input_files("#file", str(path))
        report = verify_document(docs[name])
        want = "ok" if report.ok else "fail"
        await page.locator(f".verdict[data-verdict='{want}']").wait_for(timeout=60_000)
        lines = await page.locator(".lines").inner_text()
        if report.ok:
            assert report.checked[1] in lines
            assert lines.strip().endswith(f"verified: {path.name}")
        else:
            assert f"FAIL {report.error}" in lines
        await shot(page, "verify-" + path.stem)
    assert not errors, errors
