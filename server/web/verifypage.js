// /verify: drop a bundle or a record (or fetch a closed tournament's bundle) and check it
// in the browser, as `samedeal verify` does: the same lines, the same verdict, the same
// first difference. Receipts kept by this browser are checked against the document too.

import { fill, h } from "./dom.js";
import { checkReceipt } from "./receipts.js";
import { receipts } from "./store.js";
import { BUNDLE_FORMAT, Unreadable, reportLines, verifyDocument } from "./verify.js";

export function verifyPage(main) {
  const out = h("section.verify-out", { "aria-live": "polite" });
  const input = h("input#file", { type: "file", accept: ".json,application/json", "aria-label": "choose a record or bundle file" });
  input.addEventListener("change", () => input.files[0] && runFile(input.files[0], out));
  const drop = h("label.dropzone", { for: "file" },
    h("strong", "Drop a bundle or a record here"), h("span.muted", "or click to choose a file (samedeal-bundle/1 or samedeal-record/1 JSON)"), input);
  drop.addEventListener("dragover", (e) => { e.preventDefault(); drop.classList.add("over"); });
  drop.addEventListener("dragleave", () => drop.classList.remove("over"));
  drop.addEventListener("drop", (e) => {
    e.preventDefault();
    drop.classList.remove("over");
    const file = e.dataTransfer.files[0];
    if (file) runFile(file, out);
  });
  const idInput = h("input#tid", { type: "number", min: "1", placeholder: "id", "aria-label": "tournament id" });
  const fetchForm = h("form.fetch", {
    onsubmit: (e) => {
      e.preventDefault();
      if (idInput.value) fetchAndVerify(Number(idInput.value), out);
    },
  }, h("span", "or a closed tournament of this server: "), idInput, h("button", { type: "submit" }, "Fetch and verify"));
  fill(main, h("h1", "Verify a record or a bundle"),
    h("p", "Everything runs in this page: the seed against its commitment (SHA-256), every deal and redeal from the seed (samedeal-drbg-v1, HMAC-SHA256 by Web Crypto), a public beacon's drand round against the network's key (BLS12-381 by @noble/curves) and the deal seed it gives, every action replayed under the rules, the claimed results, the receipts' hash chains (samedeal-log/1) and the standings. Nothing is sent anywhere."),
    drop, fetchForm, out);
  const wanted = new URLSearchParams(location.search).get("tournament");
  if (wanted && /^\d+$/.test(wanted)) {
    idInput.value = wanted;
    fetchAndVerify(Number(wanted), out);
  }
}

async function runFile(file, out) {
  fill(out, h("p.muted", `reading ${file.name}…`));
  let data;
  try {
    data = JSON.parse(await file.text());
  } catch (exc) {
    return showLines(out, file.name, null, `unreadable: ${file.name}: ${exc.message}`);
  }
  await runDocument(data, file.name, out);
}

export async function fetchAndVerify(id, out) {
  fill(out, h("p.muted", `fetching the bundle of tournament ${id}…`));
  const res = await fetch(`/tournaments/${id}/bundle.json`);
  if (!res.ok) return fill(out, h("p.error", `no bundle for tournament ${id} (${res.status}): it is published when the tournament closes`));
  await runDocument(await res.json(), `tournament ${id} bundle`, out);
}

export async function runDocument(data, name, out) {
  fill(out, h("p.muted", `verifying ${name}…`));
  const started = performance.now();
  let report;
  try {
    report = await verifyDocument(data);
  } catch (exc) {
    if (exc instanceof Unreadable) return showLines(out, name, null, `unreadable: ${name}: ${exc.message}`);
    throw exc;
  }
  const ms = performance.now() - started;
  const lines = reportLines(report, name);
  const extra = await receiptLines(data);
  showLines(out, name, report, null, lines.concat(extra.lines), ms, extra.failed);
}

async function receiptLines(data) {
  const lines = [];
  let failed = false;
  const isBundle = data && data.format === BUNDLE_FORMAT;
  const tid = data && data.tournament && data.tournament.id;
  for (const r of receipts.of(tid)) {
    let record = data;
    if (isBundle) record = (data.records || []).find((x) => x && x.player && String(x.player.name).toLowerCase() === r.player.toLowerCase());
    else if (!(data && data.player && String(data.player.name).toLowerCase() === r.player.toLowerCase())) continue;
    const what = `receipt: the log ${r.player ? `'${r.player}'` : ""} acknowledged at seq ${r.seq}`;
    const why = record ? await checkReceipt(record, r.seq, r.log_hash) : `the bundle has no record of '${r.player}'`;
    if (why === null) lines.push(`ok   ${what} is in the ${isBundle ? "bundle" : "record"}, unchanged (kept by this browser)`);
    else {
      failed = true;
      lines.push(`FAIL ${what} is not there unchanged: ${why}`);
    }
  }
  return { lines, failed };
}

function showLines(out, name, report, unreadable, lines = [], ms = 0, receiptFailed = false) {
  let verdict;
  if (unreadable) verdict = h("p.verdict.unreadable", { "data-verdict": "unreadable" }, "Unreadable: not a record or a bundle");
  else if (!report.ok || receiptFailed) {
    verdict = h("p.verdict.fail", { "data-verdict": "fail" }, "Differs: ", report.error || "a receipt is not in the document");
  } else {
    verdict = h("p.verdict.ok", { "data-verdict": "ok" }, `Verified: ${name}`);
  }
  const pre = h("pre.lines");
  for (const line of unreadable ? [unreadable] : lines) {
    pre.append(h(`span.line.${line.slice(0, 4).trim().toLowerCase() || "x"}`, line), "\n");
  }
  fill(out, verdict, pre, ms ? h("p.muted.small", `checked in ${Math.round(ms)} ms in this browser`) : null);
}

/** On a closed tournament's page: replays of each entry, and the bundle verified here. */
export function closedPanel(link, id, summary) {
  const list = h("ul.replays", h("li.muted", "loading the records…"));
  const out = h("section.verify-out", { "aria-live": "polite" });
  const panel = h("section.closed-panel",
    h("h2", "After the close"),
    h("p", "The seed is revealed: every game can be replayed and checked."),
    h("button.primary.verify-here", { onclick: () => fetchAndVerify(id, out) }, "Verify this tournament here"),
    " ", h("a", { href: `/tournaments/${id}/bundle.json`, download: `tournament-${id}-bundle.json` }, "download the bundle"),
    " · ", h("a.to-analysis", { href: `/t/${id}/analysis`, "data-nav": "" }, "the analysis room"),
    out, h("h3", "Replays"), list);
  fetch(`/tournaments/${id}/bundle.json`).then(async (res) => {
    if (!res.ok) return fill(list, h("li.muted", "the bundle is not published yet"));
    const bundle = await res.json();
    fill(list, bundle.standings.map((row) => h("li", h("a", { href: `/t/${id}/replay/${encodeURIComponent(row.player)}`, "data-nav": "" },
      `${row.rank === null ? "DQ" : `#${row.rank}`} ${row.player}`), row.bot ? " (bot)" : "",
      ` · ${row.status}, progress ${row.progress}`, row.rank === null && row.disqualified ? ` · disqualified: ${row.disqualified}` : "")));
    if (!bundle.standings.length) fill(list, h("li.muted", "no entries"));
  }).catch(() => fill(list, h("li.muted", "the bundle could not be fetched")));
  void link;
  void summary;
  return panel;
}
