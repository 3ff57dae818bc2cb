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
import { t, t as tr, tn } from "./i18n.js";

/** A game status in words (playing, won, lost, resigned, timed out). */
export function statusWord(status) {
  return ["playing", "won", "lost", "resigned", "timed_out"].includes(status) ? t(`web.row.${status}`) : status;
}

export async function replayPage(main, link, id, name) {
  fill(main, h("h1", t("web.replay.title", { name })), h("p.muted", t("web.replay.loading")));
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
      return fill(main, h("h1", t("web.replay.title", { name })), h("p.error", t("web.replay.no_record", { error: exc.message })),
        h("p", h("a", { href: `/t/${id}`, "data-nav": "" }, t("web.replay.back"))));
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
    ? t("web.replay.figures_gaps", { placed: p.cards_in_place, redeals: p.redeals_used, score: p.score })
    : t("web.replay.figures_klondike", { home: p.cards_home, recycles: p.recycles_used, score: p.score, moves: p.moves });
}

/** The par of a record in words ("par: 48 in place, 1 redeal"), or null without one. */
export function parText(record) {
  const par = parOf(record);
  if (!par) return null;
  const game = record.tournament.game === "gaps" ? "gaps" : "klondike";
  return t("web.par.text", { progress: t(`web.par.progress.${game}`, { n: par.progress }), resets: tn(`web.par.resets.${game}`, par.resets), actions: tn("web.par.actions", par.line.length) });
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
    const tt = r.tournament;
    const { rec, states, error, heads } = this.lines[this.showing];
    const i = this.stepper.i;
    const state = states[i];
    const n = states.length - 1;
    const entry = i ? rec.actions[i - 1] : null;
    const view = state.view();
    const atDeal = !entry || entry.action.kind === "redeal";
    const board = tt.game === "gaps" ? gapsBoard(view, { highlight: entry && entry.action.card ? [entry.action.card] : null, options: tt.options, aces: dealAces(state, atDeal) })
      : klondikeBoard(view, { hint: entry && entry.action.kind === "move" ? entry.action : null });
    const redealNo = this.stepper.marks.filter((k) => k <= i).length - 1;
    const onPar = this.showing === "par";
    const par = parText(r);
    const when = onPar ? (entry ? tr("web.replay.par_step", { i, n, action: describe(entry.action) }) : tr("web.replay.deal_par", { n }))
      : entry ? tr("web.replay.seq_step", { seq: entry.seq, n, clock: clock(entry.at_ms), action: describe(entry.action) }) : tr("web.replay.deal", { n });
    fill(this.main,
      h("h1", tr("web.replay.title", { name: r.player.name }), " ", h("span.tag", { translate: "no" }, tt.name), onPar ? h("span.tag.par", tr("web.replay.par_line")) : null),
      h("p.meta", optionsText(tt.game, tt.options), " · ", tr("web.replay.result", { status: statusWord(r.result.status), progress: r.result.progress, clock: clock(r.result.time_ms) }),
        " · ", h("a", { href: `/t/${this.id}`, "data-nav": "" }, tr("web.replay.tournament")),
        " · ", h("a.to-analysis", { href: `/t/${this.id}/analysis`, "data-nav": "" }, tr("web.replay.analysis"))),
      h("p.par-line", par ? [h("strong", par), " ",
        h("button.show-par", { onclick: () => this.show(onPar ? "record" : "par") }, onPar ? tr("web.replay.back_to_game") : tr("web.replay.step_par"))]
        : h("span.muted", tr("web.replay.no_par"))),
      this.stepper.controls(),
      h("p.step", { "data-step": String(i) }, when,
        tt.game === "gaps" ? ` · ${redealNo ? tr("web.replay.after_redeal", { k: redealNo }) : tr("web.replay.first_deal")}` : "",
        " · ", tr("web.replay.status", { status: statusWord(state.status) })),
      board,
      atDeal && i && state.variant && state.variant.acesOnRedeal
        ? h("p.aces-fell.small", tr("web.replay.aces_fell")) : null,
      h("p.figures", figuresText(tt.game, state)),
      heads ? h("details.audit.small", h("summary", tr("web.audit.summary")), h("p.receipt", tr("web.replay.log_hash", { i }), " ", h("code", { translate: "no" }, heads[i] || "")),
        h("p.muted", tr("web.replay.log_hash_explain"))) : null,
      error ? h("p.error", tr(onPar ? "web.replay.par_illegal" : "web.replay.record_illegal"), " ", h("span", { translate: "no" }, error)) : null,
      h("p.legend.small", tr("web.replay.keys")));
  }
}
