// /t/ID/analysis: the analysis room of a closed tournament, from its published bundle
// (RECORD.md). The deal; the reference line (the entry's par when the record has one, else
// the best line the players found: the top-ranked entry's) beside the viewer's and the top
// entries' replays, stepping together; the distribution of first moves; for the signed-in
// viewer, where their line left the reference and their percentile.

import { dealAces, gapsBoard, klondikeBoard, optionsText } from "./boards.js";
import { clock, fill, h } from "./dom.js";
import { firstMoves, lineRecord, parOf, parting, rankedRows, recordOf, reference, standing } from "./lines.js";
import { describe } from "./actionwords.js";
import { figuresText, parText } from "./replay.js";
import { Stepper, dealMarks } from "./stepper.js";
import { account } from "./store.js";
import { canonical } from "./receipts.js";
import { replayStates } from "./verify.js";
import { percent, t as tr, tn } from "./i18n.js";
import { statusWord } from "./replay.js";

/** The viewer's own record in the room (its column is tagged "you"). */
const mineOf = (room) => (room.viewer ? recordOf(room.bundle, room.viewer) : null);

const COLUMNS = 6; // lines shown at first: the reference, the viewer's, the top entries'
const PICKABLE = 500; // entries offered by the picker, best ranked first

export async function analysisPage(main, link, id) {
  fill(main, h("h1", tr("web.analysis.title")), h("p.muted", tr("web.analysis.loading")));
  let bundle;
  try {
    const res = await fetch(`/tournaments/${id}/bundle.json`);
    // (the server's 404 body is English: the page says it in its language)
    if (!res.ok) throw new Error(res.status === 404 ? tr("web.analysis.not_closed") : `HTTP ${res.status}`);
    bundle = await res.json();
  } catch (exc) {
    return fill(main, h("h1", tr("web.analysis.title")),
      h("p.error", tr("web.analysis.after_close", { error: exc.message })),
      h("p", h("a", { href: `/t/${id}`, "data-nav": "" }, tr("web.replay.back"))));
  }
  void link;
  const room = new Room(main, bundle, id, account.token ? account.name : null);
  await room.start();
  return () => room.stepper.stop();
}

/** The lines shown side by side: [{title, tag, rec, own (the entry's record or null)}]. */
function columnsOf(bundle, ref, viewer) {
  const mine = viewer ? recordOf(bundle, viewer) : null;
  const refTitle = ref.kind === "par" ? tr("web.analysis.par_of", { name: ref.owner }) : ref.owner;
  const cols = [{ title: refTitle, tag: ref.kind === "par" ? tr("web.analysis.tag_par") : tr("web.analysis.tag_best"), rec: lineRecord(ref.record, ref.line), own: null, ref: true }];
  const shown = new Set(ref.kind === "best" ? [ref.record.player.name] : []);
  const add = (rec, tag) => {
    if (cols.length >= COLUMNS || shown.has(rec.player.name)) return;
    shown.add(rec.player.name);
    cols.push({ title: rec.player.name, tag, rec, own: rec });
  };
  if (mine) add(mine, tr("web.analysis.tag_you"));
  for (const row of rankedRows(bundle.standings)) {
    if (cols.length >= COLUMNS) break;
    const rec = recordOf(bundle, row.player);
    if (rec) add(rec, `#${row.rank}`);
  }
  return cols;
}

class Room {
  constructor(main, bundle, id, viewer) {
    Object.assign(this, { main, bundle, id, viewer, t: bundle.tournament });
    this.ref = reference(bundle, viewer);
    this.stepper = new Stepper(0, () => this.renderLines());
  }

  async start() {
    const t = this.t;
    const head = [h("h1", tr("web.analysis.title_of"), " ", h("span", { translate: "no" }, t.name)),
      h("p.meta", optionsText(t.game, t.options), " · ", tn("web.analysis.entries", this.bundle.records.length), " · ",
        h("a", { href: `/t/${this.id}`, "data-nav": "" }, tr("web.replay.tournament")), " · ",
        h("a", { href: `/tournaments/${this.id}/bundle.json`, download: `tournament-${this.id}-bundle.json` }, tr("web.analysis.bundle")))];
    if (!this.ref) return fill(this.main, head, h("p.muted", tr("web.analysis.nobody")));
    this.cols = columnsOf(this.bundle, this.ref, this.viewer);
    await Promise.all(this.cols.map((col) => this.replayed(col)));
    const refLine = this.cols[0].rec.actions.map((a) => a.action);
    this.stepper.reset(this.lastStep(), dealMarks(refLine, this.cols[0].states.length - 1));
    this.linesEl = h("div.lines-now");
    this.pickEl = h("div.lines-pick", this.pickerEl());
    fill(this.main, head, this.dealEl(), this.viewerEl(), this.firstMovesEl(), h("section.lines-room", this.linesEl, this.pickEl));
    this.renderLines();
  }

  /** `col` with its states replayed and, beside the reference, where it parts from it. */
  async replayed(col) {
    Object.assign(col, await replayStates(col.rec));
    if (col.ref) return;
    const shared = this.t.game !== "gaps" || col.rec.player.id === this.ref.record.player.id; // Klondike: one deal for all
    col.parts = parting(col.rec.actions.map((a) => a.action), this.ref.line, shared);
  }

  lastStep() {
    return Math.max(...this.cols.map((c) => c.states.length - 1));
  }

  /** Another entry's line beside the others, from the picker (at the current step). */
  async addLine(name) {
    const rec = recordOf(this.bundle, name);
    if (!rec || this.cols.some((c) => c.own === rec)) return;
    const row = this.bundle.standings.find((r) => r.player === rec.player.name);
    const col = { title: rec.player.name, tag: row && row.rank ? `#${row.rank}` : tr("web.analysis.tag_entry"), rec, own: rec };
    await this.replayed(col);
    this.cols.push(col);
    this.stepper.last = this.lastStep();
    fill(this.pickEl, this.pickerEl());
    this.renderLines();
  }

  /** A picker of the entries not shown: the first PICKABLE by rank (then name), unranked last. */
  pickerEl() {
    const shown = new Set(this.cols.map((c) => c.rec.player.name));
    const names = this.bundle.records.map((r) => r.player.name).filter((n) => !shown.has(n));
    if (!names.length) return null;
    const rank = new Map(this.bundle.standings.map((r) => [r.player, r.rank]));
    const order = (n) => rank.get(n) ?? Infinity;
    const pick = names.sort((a, b) => order(a) - order(b) || (a < b ? -1 : 1)).slice(0, PICKABLE);
    const select = h("select.add-line", { "aria-label": tr("web.analysis.add_line") }, h("option", { value: "" }, tr("web.analysis.add_line_option")),
      pick.map((n) => h("option", { value: n }, rank.get(n) ? `#${rank.get(n)} ${n}` : n)));
    select.addEventListener("change", () => select.value && this.addLine(select.value));
    return h("p.picker", select, names.length > PICKABLE ? h("span.muted.small", " ", tr("web.analysis.first_of", { k: PICKABLE, n: names.length })) : null);
  }

  board(state, action) {
    const view = state.view();
    const atDeal = !action || action.kind === "redeal";
    return this.t.game === "gaps" ? gapsBoard(view, { highlight: action && action.card ? [action.card] : null, options: this.t.options, aces: dealAces(state, atDeal) })
      : klondikeBoard(view, { hint: action && action.kind === "move" ? action : null });
  }

  dealEl() {
    const ref = this.ref;
    const row = this.bundle.standings.find((r) => r.player === ref.owner);
    const who = `${ref.owner}${row && row.rank ? ` (#${row.rank})` : ""}`;
    const par = parOf(ref.record);
    const figures = par ? tr("web.analysis.par_figures", { progress: tr(`web.par.progress.${this.t.game === "gaps" ? "gaps" : "klondike"}`, { n: par.progress }),
      resets: tn(`web.par.resets.${this.t.game === "gaps" ? "gaps" : "klondike"}`, par.resets), actions: tn("web.par.actions", par.line.length) }) : "";
    const about = ref.kind === "par"
      ? tr(this.t.game === "gaps" ? "web.analysis.about_par_gaps" : "web.analysis.about_par_klondike", { who, figures })
      : tr("web.analysis.about_best", { who });
    return h("section.deal-room", h("h2", tr("web.analysis.deal")), h("p.about-ref", about),
      this.board(this.cols[0].states[0], null),
      this.t.game === "gaps" ? h("p.legend.small", tr("web.analysis.deal_legend")) : null);
  }

  viewerEl() {
    const box = h("section.you-room.notice", h("h2", tr("web.analysis.you")));
    const mine = this.viewer ? recordOf(this.bundle, this.viewer) : null;
    if (!mine) {
      box.append(h("p.muted", this.viewer ? tr("web.analysis.no_entry", { name: this.viewer })
        : tr("web.analysis.sign_in")));
      return box;
    }
    const place = standing(this.bundle.standings, this.viewer);
    box.append(h("p.percentile", place
      ? [h("strong", tr("web.analysis.rank_of", { rank: place.rank, of: place.of })), " · ", place.of > 1
        ? tn("web.analysis.percentile", place.of - 1, { pct: place.percentile, below: place.below }) : tr("web.analysis.only_ranked")]
      : tr("web.analysis.not_ranked")));
    box.append(h("p.parting", ...this.partingText(mine)));
    const par = parText(mine);
    box.append(h("p.small", par || tr("web.analysis.your_par_none"), " · ", h("a", { href: `/t/${this.id}/replay/${encodeURIComponent(mine.player.name)}`, "data-nav": "" }, tr("web.analysis.your_replay"))));
    return box;
  }

  /** Where the viewer's line left the reference, in words, with a button to go there. */
  partingText(mine) {
    const ref = this.ref;
    const col = this.cols.find((c) => c.own === mine);
    const what = ref.kind === "par" ? (ref.record === mine ? tr("web.analysis.your_par") : tr("web.analysis.their_par", { name: ref.owner })) : tr("web.analysis.best_found");
    if (!col) return [tr("web.analysis.yours_best", { action: describe(mine.actions[0] && mine.actions[0].action) || tr("web.analysis.no_action") })];
    const p = col.parts;
    const go = (step) => h("button.go-step", { onclick: () => this.stepper.go(step), "data-go": String(step) }, tr("web.analysis.show_step", { step }));
    const refLine = this.cols[0].rec.actions;
    if (p.redeal) {
      return [tr("web.analysis.followed_to_redeal", { what, step: p.redeal }), " ", go(p.redeal)];
    }
    if (p.same) {
      if (p.step === null) return [tr("web.analysis.is_line", { what })];
      return p.step > refLine.length ? [tr("web.analysis.followed_to_end", { what, step: refLine.length }), " ", go(refLine.length)]
        : [tr("web.analysis.followed_until_end", { what, step: p.step - 1 }), " ", go(p.step - 1)];
    }
    const yours = mine.actions[p.step - 1].action;
    const best = refLine[p.step - 1].action;
    return [h("strong.left-at", { "data-step": String(p.step) }, tr("web.analysis.left_at", { what, step: p.step })),
      tr("web.analysis.you_played", { yours: describe(yours), what, best: describe(best) }), " ", go(p.step)];
  }

  firstMovesEl() {
    const moves = firstMoves(this.bundle.records);
    const same = (a, b) => !!a && !!b && canonical(a.action) === canonical(b.action);
    const refFirst = this.cols[0].rec.actions[0];
    const refTag = this.ref.kind === "par" ? tr("web.analysis.tag_par") : tr("web.analysis.tag_best");
    const mine = this.viewer ? recordOf(this.bundle, this.viewer) : null;
    const marks = (m) => h("span.marks", same(refFirst, m) ? h("span.tag.par", refTag) : null,
      mine && same(mine.actions[0], m) ? h("span.tag.you", tr("web.analysis.tag_you")) : null);
    const share = (m) => percent(m.share, 0);
    const unplayed = refFirst && !moves.some((m) => same(refFirst, m));
    return h("section.first-moves",
      h("h2", tr("web.analysis.first_moves"), h("span.count", tn("web.analysis.players", moves.reduce((s, m) => s + m.count, 0)))),
      moves.length ? h("ol.moves", moves.map((m) => h("li.first-move", { "data-count": String(m.count) },
        h("span.what", describe(m.action)), marks(m),
        h("meter", { min: "0", max: "1", value: String(m.share), "aria-label": share(m) }),
        h("span.share", `${m.count} (${share(m)})`))))
        : h("p.muted", tr("web.analysis.no_moves")),
      unplayed ? h("p.small.ref-first", h("span.tag.par", refTag), " ", tr("web.analysis.ref_first", { action: describe(refFirst.action) })) : null);
  }

  renderLines() {
    const i = this.stepper.i;
    const refAction = (k) => this.cols[0].rec.actions[k - 1];
    fill(this.linesEl,
      h("h2", tr("web.analysis.lines"), h("span.count", tr("web.analysis.step_of", { i, n: this.stepper.last }))),
      this.stepper.controls(),
      h("p.step", { "data-step": String(i) }, i ? tr("web.analysis.step", { i }) : tr("web.rules.caption.deal"), refAction(i) ? [" · ", tr("web.analysis.ref_plays", { action: describe(refAction(i).action) })] : ""),
      h(`div.lines-grid.${this.t.game}-lines`, this.cols.map((col) => this.columnEl(col, i))),
      h("p.legend.small", tr("web.analysis.keys")));
  }

  columnEl(col, i) {
    const n = col.states.length - 1;
    const k = Math.min(i, n);
    const entry = k ? col.rec.actions[k - 1] : null;
    const left = col.parts && col.parts.step !== null && !col.parts.same && i >= col.parts.step;
    const own = col.own;
    return h(`div.line-col${col.ref ? ".ref" : ""}${left ? ".parted" : ""}`, { "data-player": col.rec.player.name, "data-shown": String(k) },
      h("h3", h("span", { translate: col.ref ? null : "no" }, col.title), " ", h(`span.tag${col.ref ? ".par" : col.own === mineOf(this) ? ".you" : ""}`, col.tag)),
      h("p.small.line-meta", own ? tr("web.analysis.line_meta", { status: statusWord(own.result.status), progress: own.result.progress, clock: clock(own.result.time_ms) }) : tn("web.par.actions", n),
        own && parOf(own) ? [" · ", tr("web.analysis.par_short", { progress: parOf(own).progress, resets: parOf(own).resets })] : ""),
      this.board(col.states[k], entry && entry.action),
      h("p.small.line-step", i > n ? tr("web.analysis.ended_at", { n }) : entry ? `${k}: ${describe(entry.action)}` : tr("web.rules.caption.deal")),
      h("p.small.figures", figuresText(this.t.game, col.states[k])),
      col.parts && col.parts.step !== null && !col.parts.same ? h("p.small.left", tr(left ? "web.analysis.left_ref" : "web.analysis.leaves_ref", { step: col.parts.step })) : null,
      col.error ? h("p.error.small", tr("web.analysis.stops_legal"), " ", h("span", { translate: "no" }, col.error)) : null);
  }
}
