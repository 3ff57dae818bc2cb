// The operator's fair play (COMPETITION.md "Fair play"; the section of /operator):
// disqualify an entry, before or after the close (`disqualify` → `amended`: the entry is
// kept, the standings re-ranked without it, after the close an amendment of the bundle),
// and the organiser's report of a tournament (`fairplay_report`, an admin message beyond
// the contract: the lines `samedeal fairplay T` prints). The report only points, each
// line with why and the figures; nothing here acts on it.

import { fill, h } from "./dom.js";

const KINDS = { same_opening: "same opening", fast: "fast", even: "even times", new_account: "new account", bot: "bot" };

/** The section: `el`, and `update(items)` with the server's tournaments (every status). */
export function fairplaySection(link) {
  const pick = h("select#fp-tournament", { name: "tournament" });
  const msg = h("p.fp-msg", { role: "status" });
  const entrants = h("datalist#dq-entrants");
  const out = h("p.small.muted.dq-list");
  const confirmBox = h("div.dq-confirm-area");
  const report = h("div.fp-report");
  const say = (text, bad = false) => { msg.textContent = text; msg.className = bad ? "fp-msg error" : "fp-msg ok"; msg.setAttribute("role", bad ? "alert" : "status"); };
  const fail = (exc) => say(`${exc.code || "error"}: ${exc.message}`, true);
  let items = [];
  const chosen = () => items.find((t) => String(t.id) === pick.value) || null;

  const player = h("input#dq-player", { name: "player", list: "dq-entrants", maxlength: "32", autocomplete: "off", placeholder: "the entrant's name" });
  const reason = h("input#dq-reason", { name: "reason", maxlength: "200", placeholder: "shown in the standings and the bundle" });
  const dqButton = h("button.danger", { type: "submit" }, "Disqualify…");
  const dqForm = h("form.op-disqualify", { onsubmit: (e) => { e.preventDefault(); ask(); } },
    h("h3", "Disqualify an entry"),
    h("label", { for: "dq-player" }, "Player"), player, entrants,
    h("label", { for: "dq-reason" }, "Reason (required, 1–200 characters)"), reason, dqButton, confirmBox);

  const ask = () => {
    const t = chosen();
    const who = player.value.trim();
    const why = reason.value.trim();
    fill(confirmBox);
    if (!t) return say("choose a tournament first", true);
    if (!who) return say("name the player whose entry is disqualified", true);
    if (!why) return say("a reason is required: it is shown with the entry in the standings and the bundle", true);
    const late = t.status === "closed";
    fill(confirmBox, h("div.confirm.dq-confirm", { role: "alertdialog", "aria-label": "Disqualify?" },
      h("p", "Disqualify ", h("strong", who), ` from ${t.name} for “${why}”? `,
        late ? "The tournament is closed: this amends its bundle and computes ratings again. " : "",
        "It cannot be undone; the entry stays with its actions, unranked."),
      h("button.danger.dq-yes", { type: "button", onclick: () => disqualify(t, who, why) }, "Yes, disqualify"),
      h("button.dq-no", { type: "button", onclick: () => fill(confirmBox) }, "Cancel")));
  };
  const disqualify = async (t, who, why) => {
    fill(confirmBox);
    dqButton.disabled = true;
    say(t.status === "closed" ? "disqualifying… (after the close, ratings are computed again: this can take a while)" : "disqualifying…");
    try {
      const r = await link.call("disqualify", { tournament: t.id, player: who, reason: why });
      say(`${r.player} disqualified from ${t.name}: the standings are re-ranked without the entry`
        + (t.status === "closed" ? "; an amendment of the closed tournament's bundle, ratings computed again" : ""));
      reason.value = "";
      await showEntrants();
    } catch (exc) {
      fail(exc);
    } finally {
      dqButton.disabled = false;
    }
  };

  const moves = h("input#fp-moves", { name: "moves", type: "number", min: "1", max: "10000", value: "20" });
  const rForm = h("form.op-report", { onsubmit: (e) => { e.preventDefault(); readReport(); } },
    h("h3", "Report"),
    h("label", { for: "fp-moves" }, "Identical opening moves that make a shared opening"), moves,
    h("button", { type: "submit" }, "Read the report"));
  const readReport = async () => {
    const t = chosen();
    if (!t) return say("choose a tournament first", true);
    fill(report, h("p.muted", "reading…"));
    try {
      const r = await link.call("fairplay_report", { tournament: t.id, moves: Number(moves.value) });
      fill(report, h("h3", `${t.name}: ${r.findings.length} finding${r.findings.length === 1 ? "" : "s"}`),
        h("p.small.muted", "Pointers for the organiser, not verdicts: nothing is done about them unless you disqualify."),
        r.findings.length ? h("ul.findings", r.findings.map(finding)) : h("p.muted", "nothing to point at"));
    } catch (exc) {
      fill(report);
      fail(exc);
    }
  };
  const finding = (f) => h("li.finding", { "data-kind": f.kind },
    h(`span.tag.kind-${f.kind}`, KINDS[f.kind] || f.kind), " ",
    f.players.map((p, i) => [i ? ", " : "", h("a", { href: `/players/${encodeURIComponent(p)}`, "data-nav": "" }, p)]),
    h("p.why", f.why),
    h("p.small", f.players.map((p) => h("button.pick", { type: "button", "data-player": p, onclick: () => { player.value = p; reason.focus(); } }, `Disqualify ${p}…`))));

  const showEntrants = async () => {
    const t = chosen();
    fill(entrants);
    fill(out);
    if (!t) return;
    try {
      const page = await link.call("standings_page", { tournament: t.id, limit: 100 });
      fill(entrants, page.rows.map((row) => h("option", { value: row.player })));
      const dq = page.rows.filter((row) => row.rank === null);
      fill(out, `${page.total ?? page.rows.length} entrants`, dq.length ? [" · disqualified: ",
        dq.map((row, i) => [i ? "; " : "", h("strong", row.player), ` (${row.disqualified})`])] : " · none disqualified");
    } catch (exc) {
      fill(out, `entrants unavailable: ${exc.message}`);
    }
  };
  pick.addEventListener("change", () => { fill(report); fill(confirmBox); showEntrants(); });

  const el = h("section.op-fairplay", h("h2", "Fair play"),
    h("p.small", "Disqualify an entry before or after the close: it keeps its actions and receipts, is listed after the others unranked with the reason, and after the close the bundle carries the amendment. The report points at entries worth a look (shared first moves, inhumanly fast or even think times, accounts created shortly before joining, bots), each with why; it never acts."),
    h("label", { for: "fp-tournament" }, "Tournament"), pick, out, msg,
    h("div.op-forms", dqForm, rForm), report);
  const update = (all) => {
    const keep = pick.value;
    items = [...all].sort((a, b) => b.id - a.id);
    fill(pick, items.map((t) => h("option", { value: String(t.id) }, `#${t.id} ${t.name} · ${t.status}${t.void ? " (void)" : ""}`)));
    if (items.some((t) => String(t.id) === keep)) pick.value = keep;
    if (pick.value !== keep) { fill(report); showEntrants(); }
  };
  return { el, update };
}
