// /verify: drop a bundle or a record (or fetch a closed tournament's bundle) and check it
// in the browser, as `samedeal verify` does: the same lines, the same verdict, the same
// first difference. Receipts kept by this browser are checked against the document too.

import { fill, h } from "./dom.js";
import { checkReceipt } from "./receipts.js";
import { receipts } from "./store.js";
import { BUNDLE_FORMAT, Unreadable } from "./shapes.js";
import { verifyDocument } from "./verify.js";
import { speak } from "./said.js";
import { t } from "./i18n.js";
import { statusWord } from "./replay.js";

export function verifyPage(main) {
  const out = h("section.verify-out", { "aria-live": "polite" });
  const input = h("input#file", { type: "file", accept: ".json,application/json", "aria-label": t("web.verify.choose_aria") });
  input.addEventListener("change", () => input.files[0] && runFile(input.files[0], out));
  const drop = h("label.dropzone", { for: "file" },
    h("strong", t("web.verify.drop")), h("span.muted", t("web.verify.click")), input);
  drop.addEventListener("dragover", (e) => { e.preventDefault(); drop.classList.add("over"); });
  drop.addEventListener("dragleave", () => drop.classList.remove("over"));
  drop.addEventListener("drop", (e) => {
    e.preventDefault();
    drop.classList.remove("over");
    const file = e.dataTransfer.files[0];
    if (file) runFile(file, out);
  });
  const idInput = h("input#tid", { type: "number", min: "1", placeholder: t("web.verify.id"), "aria-label": t("web.verify.id_aria") });
  const fetchForm = h("form.fetch", {
    onsubmit: (e) => {
      e.preventDefault();
      if (idInput.value) fetchAndVerify(Number(idInput.value), out);
    },
  }, h("span", t("web.verify.or_fetch"), " "), idInput, h("button", { type: "submit" }, t("web.verify.fetch")));
  fill(main, h("h1", t("web.verify.title")),
    h("p", t("web.verify.intro")),
    drop, fetchForm, out);
  const wanted = new URLSearchParams(location.search).get("tournament");
  if (wanted && /^\d+$/.test(wanted)) {
    idInput.value = wanted;
    fetchAndVerify(Number(wanted), out);
  }
}

async function runFile(file, out) {
  fill(out, h("p.muted", t("web.verify.reading", { name: file.name })));
  let data;
  try {
    data = JSON.parse(await file.text());
  } catch (exc) {
    // the engine's own words for the JSON it could not parse (docs/I18N.md)
    return showLines(out, file.name, null, [["fail", t("cli.verify.unreadable", { why: `${file.name}: ${exc.message}` })]]);
  }
  await runDocument(data, file.name, out);
}

export async function fetchAndVerify(id, out) {
  fill(out, h("p.muted", t("web.verify.fetching", { id })));
  const res = await fetch(`/tournaments/${id}/bundle.json`);
  if (!res.ok) return fill(out, h("p.error", t("web.verify.no_bundle", { id, status: String(res.status) })));
  await runDocument(await res.json(), t("web.verify.bundle_of", { id }), out);
}

export async function runDocument(data, name, out) {
  fill(out, h("p.muted", t("web.verify.verifying", { name })));
  const started = performance.now();
  let report;
  try {
    report = await verifyDocument(data);
  } catch (exc) {
    if (exc instanceof Unreadable) return showLines(out, name, null, [["fail", t("cli.verify.unreadable", { why: `${name}: ${speak(exc.message)}` })]]);
    throw exc;
  }
  const ms = performance.now() - started;
  const extra = await receiptLines(data);
  showLines(out, name, report, null, spokenLines(report, name, extra.lines), ms, extra.failed);
}

/** The report's lines as [kind, text] in the page's language: `samedeal verify`'s words
 * (client_cli/verify.py) said with the catalogue, as the command line says them under
 * --lang; a difference stays in the verifier's English. */
function spokenLines(report, name, receiptLines) {
  const lines = report.checked.map((l) => ["ok", t("cli.verify.ok_line", { line: speak(l) })]);
  for (const n of report.notes) lines.push(["note", t("cli.verify.note_line", { line: speak(n) })]);
  if (report.error !== null) lines.push(["fail", t("cli.verify.fail_line", { line: speak(report.error) })]);
  else lines.push(["ok", t("cli.verify.verified", { path: name })]);
  return lines.concat(receiptLines);
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
    const said = { name: `'${r.player}'`, seq: r.seq };
    const why = record ? await checkReceipt(record, r.seq, r.log_hash) : t("cli.verify.no_record_of", said);
    if (why === null) {
      const line = t(isBundle ? "web.verify.receipt_in_bundle" : "web.verify.receipt_in_record", said);
      lines.push(["ok", t("cli.verify.ok_line", { line })]);
    } else {
      failed = true;
      lines.push(["fail", t("cli.verify.fail_line", { line: t("cli.verify.receipt_missing", { ...said, why: speak(why) }) })]);
    }
  }
  return { lines, failed };
}

function showLines(out, name, report, unreadable, lines = [], ms = 0, receiptFailed = false) {
  let verdict;
  if (unreadable) verdict = h("p.verdict.unreadable", { "data-verdict": "unreadable" }, t("web.verify.unreadable"));
  else if (!report.ok || receiptFailed) {
    verdict = h("p.verdict.fail", { "data-verdict": "fail" }, t("web.verify.differs"), " ", report.error ? h("span", { translate: "no" }, speak(report.error)) : t("web.verify.receipt_missing"));
  } else {
    verdict = h("p.verdict.ok", { "data-verdict": "ok" }, t("web.verify.verified"), " ", h("span", { translate: "no" }, name));
  }
  // the verifier's own lines, in the words `samedeal verify` says them in this language
  const pre = h("pre.lines", { translate: "no", title: t("web.verify.lines_title") });
  for (const [kind, line] of unreadable || lines) pre.append(h(`span.line.${kind}`, line), "\n");
  fill(out, verdict, h("p.muted.small", t("web.verify.lines_note")), pre, ms ? h("p.muted.small", t("web.verify.checked_in", { ms: Math.round(ms) })) : null);
}

/** On a closed tournament's page: replays of each entry, and the bundle verified here. */
export function closedPanel(link, id, summary) {
  const list = h("ul.replays", h("li.muted", t("web.verify.loading_records")));
  const out = h("section.verify-out", { "aria-live": "polite" });
  const panel = h("section.closed-panel",
    h("h2", t("web.closed.title")),
    h("p", t("web.closed.seed_revealed")),
    h("button.primary.verify-here", { onclick: () => fetchAndVerify(id, out) }, t("web.closed.verify_here")),
    " ", h("a", { href: `/tournaments/${id}/bundle.json`, download: `tournament-${id}-bundle.json` }, t("web.closed.download")),
    " · ", h("a.to-analysis", { href: `/t/${id}/analysis`, "data-nav": "" }, t("web.closed.analysis")),
    out, h("h3", t("web.closed.replays")), list);
  fetch(`/tournaments/${id}/bundle.json`).then(async (res) => {
    if (!res.ok) return fill(list, h("li.muted", t("web.closed.not_published")));
    const bundle = await res.json();
    fill(list, bundle.standings.map((row) => h("li", h("a", { href: `/t/${id}/replay/${encodeURIComponent(row.player)}`, "data-nav": "" },
      row.rank === null ? t("web.standings.dq") : `#${row.rank}`, " ", h("span", { translate: "no" }, row.player)), row.bot ? [" ", t("web.closed.bot")] : "",
      " · ", t("web.closed.row", { status: statusWord(row.status), progress: row.progress }),
      row.rank === null && row.disqualified ? [" · ", t("web.standings.dq_title", { reason: row.disqualified })] : "")));
    if (!bundle.standings.length) fill(list, h("li.muted", t("web.closed.no_entries")));
  }).catch(() => fill(list, h("li.muted", t("web.closed.fetch_failed"))));
  void link;
  void summary;
  return panel;
}
