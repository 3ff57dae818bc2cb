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

const COLUMNS = 6; // lines shown at first: the reference, the viewer's, the top entries'
const PICKABLE = 500; // entries offered by the picker, best ranked first

export async function analysisPage(main, link, id) {
  fill(main, h("h1", "Analysis room"), h("p.muted", "loading the bundle…"));
  let bundle;
  try {
    const res = await fetch(`/tournaments/${id}/bundle.json`);
    if (!res.ok) throw new Error((await res.text()).trim() || `HTTP ${res.status}`);
    bundle = await res.json();
  } catch (exc) {
    return fill(main, h("h1", "Analysis room"),
      h("p.error", `The analysis room opens after the close, from the published bundle: ${exc.message}`),
      h("p", h("a", { href: `/t/${id}`, "data-nav": "" }, "back to the tournament")));
  }
  void link;
  const room = new Room(main, bundle, id, account.token ? account.name : null);
  await room.start();
  return () => room.stepper.stop();
}

/** The lines shown side by side: [{title, tag, rec, own (the entry's record or null)}]. */
function columnsOf(bundle, ref, viewer) {
  const mine = viewer ? recordOf(bundle, viewer) : null;
  const refTitle = ref.kind === "par" ? `par of ${ref.owner}` : ref.owner;
  const cols = [{ title: refTitle, tag: ref.kind === "par" ? "par" : "best found", rec: lineRecord(ref.record, ref.line), own: null, ref: true }];
  const shown = new Set(ref.kind === "best" ? [ref.record.player.name] : []);
  const add = (rec, tag) => {
    if (cols.length >= COLUMNS || shown.has(rec.player.name)) return;
    shown.add(rec.player.name);
    cols.push({ title: rec.player.name, tag, rec, own: rec });
  };
  if (mine) add(mine, "you");
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
    const head = [h("h1", "Analysis room: ", t.name),
      h("p.meta", optionsText(t.game, t.options), ` · ${this.bundle.records.length} entries · `,
        h("a", { href: `/t/${this.id}`, "data-nav": "" }, "tournament"), " · ",
        h("a", { href: `/tournaments/${this.id}/bundle.json`, download: `tournament-${this.id}-bundle.json` }, "the bundle"))];
    if (!this.ref) return fill(this.main, head, h("p.muted", "Nobody played this deal: there is nothing to compare."));
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
    const col = { title: rec.player.name, tag: row && row.rank ? `#${row.rank}` : "entry", rec, own: rec };
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
    const select = h("select.add-line", { "aria-label": "add a player's line" }, h("option", { value: "" }, "add a player's line…"),
      pick.map((n) => h("option", { value: n }, rank.get(n) ? `#${rank.get(n)} ${n}` : n)));
    select.addEventListener("change", () => select.value && this.addLine(select.value));
    return h("p.picker", select, names.length > PICKABLE ? h("span.muted.small", ` (the first ${PICKABLE} of ${names.length})`) : null);
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
    const how = this.t.game === "gaps" ? "the best line the search found with their own redeal cards" : "the guaranteed deal's solution";
    const about = ref.kind === "par"
      ? `The lines are compared with the par of ${who}, ${how}: ${parText(ref.record).slice("par: ".length)}.`
      : `No par is computed for this tournament (yet): the lines are compared with the best line found among the players, that of ${who}.`;
    return h("section.deal-room", h("h2", "The deal"), h("p.about-ref", about),
      this.board(this.cols[0].states[0], null),
      this.t.game === "gaps" ? h("p.legend.small", "Every player starts from this layout; a redeal shuffles each player's cards with a stream of their own, drawn from the same seed, so after a redeal players' boards differ.") : null);
  }

  viewerEl() {
    const box = h("section.you-room.notice", h("h2", "You"));
    const mine = this.viewer ? recordOf(this.bundle, this.viewer) : null;
    if (!mine) {
      box.append(h("p.muted", this.viewer ? `${this.viewer} has no entry in this tournament.`
        : "Sign in (in the lobby) as a player of this tournament to see where your line left the best line, and your percentile."));
      return box;
    }
    const place = standing(this.bundle.standings, this.viewer);
    box.append(h("p.percentile", place
      ? [h("strong", `rank ${place.rank} of ${place.of}`), place.of > 1
        ? ` · percentile ${place.percentile}: ranked above ${place.below} of the ${place.of - 1} others` : " · the only ranked entry"]
      : "not ranked (disqualified)"));
    box.append(h("p.parting", ...this.partingText(mine)));
    const par = parText(mine);
    box.append(h("p.small", par || "your par: not computed (yet)", " · ", h("a", { href: `/t/${this.id}/replay/${encodeURIComponent(mine.player.name)}`, "data-nav": "" }, "your replay")));
    return box;
  }

  /** Where the viewer's line left the reference, in words, with a button to go there. */
  partingText(mine) {
    const ref = this.ref;
    const col = this.cols.find((c) => c.own === mine);
    const what = ref.kind === "par" ? (ref.record === mine ? "your par" : `${ref.owner}'s par`) : "the best line found";
    if (!col) return ["Yours is the best line found (", describe(mine.actions[0] && mine.actions[0].action) || "no action", " first)."];
    const p = col.parts;
    const go = (step) => h("button.go-step", { onclick: () => this.stepper.go(step), "data-go": String(step) }, `show step ${step}`);
    const refLine = this.cols[0].rec.actions;
    if (p.redeal) {
      return [`Your line followed ${what} up to the redeal at step ${p.redeal}; from there each player's cards come from their own stream, so the lines are not compared further. `, go(p.redeal)];
    }
    if (p.same) {
      if (p.step === null) return [`Your line is ${what}, action for action.`];
      return p.step > refLine.length ? [`You followed ${what} to its end (step ${refLine.length}) and played on. `, go(refLine.length)]
        : [`You followed ${what} up to step ${p.step - 1}, where your game ended. `, go(p.step - 1)];
    }
    const yours = mine.actions[p.step - 1].action;
    const best = refLine[p.step - 1].action;
    return [h("strong.left-at", { "data-step": String(p.step) }, `Your line left ${what} at step ${p.step}`),
      `: you played ${describe(yours)}, ${what} plays ${describe(best)}. `, go(p.step)];
  }

  firstMovesEl() {
    const moves = firstMoves(this.bundle.records);
    const same = (a, b) => !!a && !!b && canonical(a.action) === canonical(b.action);
    const refFirst = this.cols[0].rec.actions[0];
    const refTag = this.ref.kind === "par" ? "par" : "best found";
    const mine = this.viewer ? recordOf(this.bundle, this.viewer) : null;
    const marks = (m) => h("span.marks", same(refFirst, m) ? h("span.tag.par", refTag) : null,
      mine && same(mine.actions[0], m) ? h("span.tag.you", "you") : null);
    const share = (m) => `${Math.round(100 * m.share)}%`;
    const unplayed = refFirst && !moves.some((m) => same(refFirst, m));
    return h("section.first-moves",
      h("h2", "First moves", h("span.count", `${moves.reduce((s, m) => s + m.count, 0)} players`)),
      moves.length ? h("ol.moves", moves.map((m) => h("li.first-move", { "data-count": String(m.count) },
        h("span.what", describe(m.action)), marks(m),
        h("meter", { min: "0", max: "1", value: String(m.share), "aria-label": share(m) }),
        h("span.share", `${m.count} (${share(m)})`))))
        : h("p.muted", "nobody made a move"),
      unplayed ? h("p.small.ref-first", h("span.tag.par", refTag), ` first move: ${describe(refFirst.action)}, which nobody played`) : null);
  }

  renderLines() {
    const i = this.stepper.i;
    const refAction = (k) => this.cols[0].rec.actions[k - 1];
    fill(this.linesEl,
      h("h2", "Lines side by side", h("span.count", `step ${i} of ${this.stepper.last}`)),
      this.stepper.controls(),
      h("p.step", { "data-step": String(i) }, i ? `step ${i}` : "the deal", refAction(i) ? ` · reference plays ${describe(refAction(i).action)}` : ""),
      h(`div.lines-grid.${this.t.game}-lines`, this.cols.map((col) => this.columnEl(col, i))),
      h("p.legend.small", "Keys: ←/→ step all lines together, Home/End, Space plays. A line that ended stays on its last position."));
  }

  columnEl(col, i) {
    const n = col.states.length - 1;
    const k = Math.min(i, n);
    const entry = k ? col.rec.actions[k - 1] : null;
    const left = col.parts && col.parts.step !== null && !col.parts.same && i >= col.parts.step;
    const own = col.own;
    return h(`div.line-col${col.ref ? ".ref" : ""}${left ? ".parted" : ""}`, { "data-player": col.rec.player.name, "data-shown": String(k) },
      h("h3", col.title, " ", h(`span.tag${col.ref ? ".par" : col.tag === "you" ? ".you" : ""}`, col.tag)),
      h("p.small.line-meta", own ? `${own.result.status}, progress ${own.result.progress}, ${clock(own.result.time_ms)}` : `${n} actions`,
        own && parOf(own) ? ` · par ${parOf(own).progress}/${parOf(own).resets}` : ""),
      this.board(col.states[k], entry && entry.action),
      h("p.small.line-step", i > n ? `ended at step ${n}` : entry ? `${k}: ${describe(entry.action)}` : "the deal"),
      h("p.small.figures", figuresText(this.t.game, col.states[k])),
      col.parts && col.parts.step !== null && !col.parts.same ? h("p.small.left", left ? `left the reference at step ${col.parts.step}` : `leaves the reference at step ${col.parts.step}`) : null,
      col.error ? h("p.error.small", `stops being legal at ${col.error}`) : null);
  }
}
