// The operator's fair play (COMPETITION.md "Fair play"; the section of /operator):
// disqualify an entry, before or after the close (`disqualify` → `amended`: the entry is
// kept, the standings re-ranked without it, after the close an amendment of the bundle),
// and the organiser's report of a tournament (`fairplay_report`, an admin message beyond
// the contract: the lines `samedeal fairplay T` prints). The report only points, each
// line with why and the figures; nothing here acts on it.

import { fill, h } from "./dom.js";
import { has, t as tr, tn } from "./i18n.js";

// why, with its figures: `fairplay.why.<kind>` said with the finding's `why_params` (the
// command lines' words, server/audit/fairplay_lines.py); a kind this page does not know
// keeps the server's English
const whyWords = (f) => (f.why_params && has(`fairplay.why.${f.kind}`) ? tr(`fairplay.why.${f.kind}`, f.why_params) : f.why);
const kindWords = (kind) => (["same_opening", "fast", "even", "new_account", "bot"].includes(kind) ? tr(`web.fp.kind.${kind}`) : kind);

/** The section: `el`, and `update(items)` with the server's tournaments (every status). */
export function fairplaySection(link) {
  const pick = h("select#fp-tournament", { name: "tournament" });
  const msg = h("p.fp-msg", { role: "status" });
  const entrants = h("datalist#dq-entrants");
  const out = h("p.small.muted.dq-list");
  const confirmBox = h("div.dq-confirm-area");
  const report = h("div.fp-report");
  const say = (text, bad = false) => { msg.textContent = text; msg.className = bad ? "fp-msg error" : "fp-msg ok"; msg.setAttribute("role", bad ? "alert" : "status"); };
  const fail = (exc) => say(exc.message, true);
  let items = [];
  const chosen = () => items.find((t) => String(t.id) === pick.value) || null;

  const player = h("input#dq-player", { name: "player", list: "dq-entrants", maxlength: "32", autocomplete: "off", placeholder: tr("web.fp.player_hint") });
  const reason = h("input#dq-reason", { name: "reason", maxlength: "200", placeholder: tr("web.fp.reason_hint") });
  const dqButton = h("button.danger", { type: "submit" }, tr("web.fp.disqualify_button"));
  const dqForm = h("form.op-disqualify", { onsubmit: (e) => { e.preventDefault(); ask(); } },
    h("h3", tr("web.fp.disqualify_title")),
    h("label", { for: "dq-player" }, tr("web.ratings.player")), player, entrants,
    h("label", { for: "dq-reason" }, tr("web.fp.reason")), reason, dqButton, confirmBox);

  const ask = () => {
    const t = chosen();
    const who = player.value.trim();
    const why = reason.value.trim();
    fill(confirmBox);
    if (!t) return say(tr("web.fp.choose_first"), true);
    if (!who) return say(tr("web.fp.name_player"), true);
    if (!why) return say(tr("web.fp.reason_required"), true);
    const late = t.status === "closed";
    fill(confirmBox, h("div.confirm.dq-confirm", { role: "alertdialog", "aria-label": tr("web.fp.ask_aria") },
      h("p", tr("web.fp.ask", { name: who, tournament: t.name, reason: why }), " ",
        late ? [tr("web.fp.ask_closed"), " "] : "",
        tr("web.fp.ask_final")),
      h("button.danger.dq-yes", { type: "button", onclick: () => disqualify(t, who, why) }, tr("web.fp.yes")),
      h("button.dq-no", { type: "button", onclick: () => fill(confirmBox) }, tr("web.cancel"))));
  };
  const disqualify = async (t, who, why) => {
    fill(confirmBox);
    dqButton.disabled = true;
    say(t.status === "closed" ? tr("web.fp.disqualifying_closed") : tr("web.fp.disqualifying"));
    try {
      const r = await link.call("disqualify", { tournament: t.id, player: who, reason: why });
      say(tr(t.status === "closed" ? "web.fp.done_closed" : "web.fp.done", { name: r.player, tournament: t.name }));
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
    h("h3", tr("web.fp.report")),
    h("label", { for: "fp-moves" }, tr("web.fp.moves")), moves,
    h("button", { type: "submit" }, tr("web.fp.read")));
  const readReport = async () => {
    const t = chosen();
    if (!t) return say(tr("web.fp.choose_first"), true);
    fill(report, h("p.muted", tr("web.fp.reading")));
    try {
      const r = await link.call("fairplay_report", { tournament: t.id, moves: Number(moves.value) });
      fill(report, h("h3", h("span", { translate: "no" }, t.name), ": ", tn("web.fp.findings", r.findings.length)),
        h("p.small.muted", tr("web.fp.pointers")),
        r.findings.length ? h("ul.findings", r.findings.map(finding)) : h("p.muted", tr("web.fp.nothing")));
    } catch (exc) {
      fill(report);
      fail(exc);
    }
  };
  const finding = (f) => h("li.finding", { "data-kind": f.kind },
    h(`span.tag.kind-${f.kind}`, kindWords(f.kind)), " ",
    f.players.map((p, i) => [i ? ", " : "", h("a", { href: `/players/${encodeURIComponent(p)}`, "data-nav": "" }, p)]),
    h("p.why", whyWords(f)),
    h("p.small", f.players.map((p) => h("button.pick", { type: "button", "data-player": p, onclick: () => { player.value = p; reason.focus(); } }, tr("web.fp.pick", { name: p })))));

  const showEntrants = async () => {
    const t = chosen();
    fill(entrants);
    fill(out);
    if (!t) return;
    try {
      const page = await link.call("standings_page", { tournament: t.id, limit: 100 });
      fill(entrants, page.rows.map((row) => h("option", { value: row.player })));
      const dq = page.rows.filter((row) => row.rank === null);
      fill(out, tn("web.entrants", page.total ?? page.rows.length), dq.length ? [" · ", tr("web.fp.disqualified"), " ",
        dq.map((row, i) => [i ? "; " : "", h("strong", { translate: "no" }, row.player), ` (${row.disqualified})`])] : [" · ", tr("web.fp.none_disqualified")]);
    } catch (exc) {
      fill(out, tr("web.fp.entrants_unavailable", { error: exc.message }));
    }
  };
  pick.addEventListener("change", () => { fill(report); fill(confirmBox); showEntrants(); });

  const el = h("section.op-fairplay", h("h2", tr("web.fp.title")),
    h("p.small", tr("web.fp.intro")),
    h("label", { for: "fp-tournament" }, tr("web.fp.tournament")), pick, out, msg,
    h("div.op-forms", dqForm, rForm), report);
  const update = (all) => {
    const keep = pick.value;
    items = [...all].sort((a, b) => b.id - a.id);
    fill(pick, items.map((t) => h("option", { value: String(t.id) }, `#${t.id} ${t.name} · ${tr(`web.status.${t.status}`)}${t.void ? ` (${tr("web.tag.void")})` : ""}`)));
    if (items.some((t) => String(t.id) === keep)) pick.value = keep;
    if (pick.value !== keep) { fill(report); showEntrants(); }
  };
  return { el, update };
}
