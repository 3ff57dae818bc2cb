// /t/ID/replay/NAME: step through a closed tournament's record, action by action and from
// redeal to redeal, with the receipt (log hash) after each step; the entry's par (RECORD.md
// v1.3) and its line, stepped through the same way. The record comes from the server
// (`record`, public) or from the published bundle; it is replayed here from the seed.

import { dealAces, gapsBoard, klondikeBoard, optionsText } from "./boards.js";
import { clock, fill, h } from "./dom.js";
import { lineRecord, parOf } from "./lines.js";
import { describe } from "./actionwords.js";
import { logHeads } from "./receipts.js";
import { Stepper, dealMarks } from "./stepper.js";
import { replayStates } from "./verify.js";

export async function replayPage(main, link, id, name) {
  fill(main, h("h1", `Replay: ${name}`), h("p.muted", "loading the record…"));
  let record = null;
  try {
    record = (await link.call("record", { tournament: id, player: name })).record;
  } catch (exc) {
    try {
      const res = await fetch(`/tournaments/${id}/bundle.json`);
      if (res.ok) {
        const bundle = await res.json();
        record = bundle.records.find((r) => r.player.name.toLowerCase() === name.toLowerCase()) || null;
      }
    } catch { /* below */ }
    if (!record) {
      return fill(main, h("h1", `Replay: ${name}`), h("p.error", `No record: ${exc.message}`),
        h("p", h("a", { href: `/t/${id}`, "data-nav": "" }, "back to the tournament")));
    }
  }
  const viewer = new Replay(main, record, id);
  await viewer.start();
  return () => viewer.stepper.stop();
}

/** Figures of a replayed state, in one line. */
export function figuresText(game, state) {
  const p = state.progressView();
  return game === "gaps"
    ? `in place ${p.cards_in_place}/48 · redeals used ${p.redeals_used} · score ${p.score}`
    : `home ${p.cards_home}/52 · recycles ${p.recycles_used} · score ${p.score} · moves ${p.moves}`;
}

/** The par of a record in words ("par: 48 in place, 1 redeal"), or null without one. */
export function parText(record) {
  const par = parOf(record);
  if (!par) return null;
  const [what, resets] = record.tournament.game === "gaps" ? ["in place", "redeal"] : ["home", "recycle"];
  return `par: ${par.progress} ${what}, ${par.resets} ${resets}${par.resets === 1 ? "" : "s"} (${par.line.length} actions)`;
}

class Replay {
  constructor(main, record, id) {
    Object.assign(this, { main, record, id, showing: "record", lines: {} });
    this.stepper = new Stepper(0, () => this.render());
  }

  async start() {
    const r = this.record;
    const { states, error } = await replayStates(r);
    const heads = await logHeads(r.tournament.commitment, r.player.id, r.actions.map((a) => [a.seq, a.at_ms, a.action]));
    this.lines.record = { rec: r, states, error, heads };
    this.show("record");
  }

  /** Step through the record's own actions ("record") or its par line ("par"). */
  async show(which) {
    if (which === "par" && !this.lines.par) {
      const rec = lineRecord(this.record, parOf(this.record).line);
      const { states, error } = await replayStates(rec);
      this.lines.par = { rec, states, error, heads: null };
    }
    this.showing = which;
    const line = this.lines[which];
    this.stepper.reset(line.states.length - 1, dealMarks(line.rec.actions.map((a) => a.action), line.states.length - 1));
    this.render();
  }

  render() {
    const r = this.record;
    const t = r.tournament;
    const { rec, states, error, heads } = this.lines[this.showing];
    const i = this.stepper.i;
    const state = states[i];
    const n = states.length - 1;
    const entry = i ? rec.actions[i - 1] : null;
    const view = state.view();
    const atDeal = !entry || entry.action.kind === "redeal";
    const board = t.game === "gaps" ? gapsBoard(view, { highlight: entry && entry.action.card ? [entry.action.card] : null, options: t.options, aces: dealAces(state, atDeal) })
      : klondikeBoard(view, { hint: entry && entry.action.kind === "move" ? entry.action : null });
    const redealNo = this.stepper.marks.filter((k) => k <= i).length - 1;
    const onPar = this.showing === "par";
    const par = parText(r);
    const when = onPar ? (entry ? `par step ${i}/${n} · ${describe(entry.action)}` : `the deal (0/${n}) · par line`)
      : entry ? `seq ${entry.seq}/${n} · ${clock(entry.at_ms)} · ${describe(entry.action)}` : `the deal (0/${n})`;
    fill(this.main,
      h("h1", `Replay: ${r.player.name}`, " ", h("span.tag", t.name), onPar ? h("span.tag.par", "par line") : null),
      h("p.meta", optionsText(t.game, t.options), ` · result ${r.result.status}, progress ${r.result.progress}, time ${clock(r.result.time_ms)}`,
        " · ", h("a", { href: `/t/${this.id}`, "data-nav": "" }, "tournament"),
        " · ", h("a.to-analysis", { href: `/t/${this.id}/analysis`, "data-nav": "" }, "analysis room")),
      h("p.par-line", par ? [h("strong", par), " ",
        h("button.show-par", { onclick: () => this.show(onPar ? "record" : "par") }, onPar ? "Back to the game" : "Step through the par line")]
        : h("span.muted", "par: not computed for this entry (yet); the analysis room compares it with the best line found")),
      this.stepper.controls(),
      h("p.step", { "data-step": String(i) }, when,
        t.game === "gaps" ? ` · ${redealNo ? `after redeal ${redealNo}` : "first deal"}` : "",
        ` · status ${state.status}`),
      board,
      atDeal && i && state.variant && state.variant.acesOnRedeal
        ? h("p.aces-fell.small", "Addiction: this redeal shuffled the aces in with the other cards; the gaps are where they fell (marked with the ace).") : null,
      h("p.figures", figuresText(t.game, state)),
      heads ? h("p.receipt.small", `log hash after seq ${i}: `, h("code", heads[i] || "")) : null,
      error ? h("p.error", `The ${onPar ? "par line" : "record"} stops being legal at ${error}`) : null,
      h("p.legend.small", "Keys: ←/→ step, Home/End, Space plays."));
  }
}
