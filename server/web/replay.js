// /t/ID/replay/NAME: step through a closed tournament's record, action by action and from
// redeal to redeal, with the receipt (log hash) after each step. The record comes from the
// server (`record`, public) or from the published bundle; it is replayed here from the seed.

import { gapsBoard, klondikeBoard, optionsText } from "./boards.js";
import { clock, fill, h } from "./dom.js";
import { describe } from "./play.js";
import { logHeads } from "./receipts.js";
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
  return () => viewer.stop();
}

class Replay {
  constructor(main, record, id) {
    Object.assign(this, { main, record, id, i: 0, timer: null });
    this.keys = (e) => this.onKey(e);
  }

  async start() {
    const { states, error } = await replayStates(this.record);
    const t = this.record.tournament;
    this.states = states;
    this.error = error;
    this.heads = await logHeads(t.commitment, this.record.player.id, this.record.actions.map((a) => [a.seq, a.at_ms, a.action]));
    this.redeals = [0];
    this.record.actions.forEach((a, k) => {
      if (a.action.kind === "redeal" && k + 1 < states.length) this.redeals.push(k + 1);
    });
    document.addEventListener("keydown", this.keys);
    this.render();
  }

  stop() {
    document.removeEventListener("keydown", this.keys);
    clearInterval(this.timer);
  }

  go(i) {
    this.i = Math.max(0, Math.min(this.states.length - 1, i));
    this.render();
  }

  play() {
    if (this.timer) {
      clearInterval(this.timer);
      this.timer = null;
    } else {
      if (this.i === this.states.length - 1) this.i = 0;
      this.timer = setInterval(() => {
        if (this.i >= this.states.length - 1) this.play();
        else this.go(this.i + 1);
      }, 400);
    }
    this.render();
  }

  onKey(e) {
    const keys = { ArrowLeft: () => this.go(this.i - 1), ArrowRight: () => this.go(this.i + 1), Home: () => this.go(0),
      End: () => this.go(this.states.length - 1), " ": () => this.play() };
    if (keys[e.key] && !(e.target instanceof HTMLInputElement)) {
      e.preventDefault();
      keys[e.key]();
    }
  }

  render() {
    const r = this.record;
    const t = r.tournament;
    const state = this.states[this.i];
    const n = this.states.length - 1;
    const entry = this.i ? r.actions[this.i - 1] : null;
    const view = state.view();
    const board = t.game === "gaps" ? gapsBoard(view, { highlight: entry && entry.action.card ? [entry.action.card] : null })
      : klondikeBoard(view, { hint: entry && entry.action.kind === "move" ? entry.action : null });
    const slider = h("input.scrub", { type: "range", min: "0", max: String(n), value: String(this.i), "aria-label": "step" });
    slider.addEventListener("input", () => this.go(Number(slider.value)));
    const redealNo = this.redeals.filter((k) => k <= this.i).length - 1;
    const controls = h("div.replay-controls",
      h("button.first", { onclick: () => this.go(0), "aria-label": "to the deal" }, "|◀"),
      h("button.prev-redeal", { onclick: () => this.go([...this.redeals].reverse().find((k) => k < this.i) ?? 0), disabled: !this.i, title: "previous deal or redeal" }, "◀ deal"),
      h("button.prev", { onclick: () => this.go(this.i - 1), "aria-label": "previous action", disabled: !this.i }, "◀"),
      h("button.playpause", { onclick: () => this.play() }, this.timer ? "Pause" : "Play"),
      h("button.next", { onclick: () => this.go(this.i + 1), "aria-label": "next action", disabled: this.i === n }, "▶"),
      h("button.next-redeal", { onclick: () => this.go(this.redeals.find((k) => k > this.i) ?? n), disabled: this.i === n, title: "next redeal" }, "redeal ▶"),
      h("button.last", { onclick: () => this.go(n), "aria-label": "to the end" }, "▶|"), slider);
    const p = state.progressView();
    const figures = t.game === "gaps"
      ? `in place ${p.cards_in_place}/48 · redeals used ${p.redeals_used} · score ${p.score}`
      : `home ${p.cards_home}/52 · recycles ${p.recycles_used} · score ${p.score} · moves ${p.moves}`;
    fill(this.main,
      h("h1", `Replay: ${r.player.name}`, " ", h("span.tag", t.name)),
      h("p.meta", optionsText(t.game, t.options), ` · result ${r.result.status}, progress ${r.result.progress}, time ${clock(r.result.time_ms)}`,
        " · ", h("a", { href: `/t/${this.id}`, "data-nav": "" }, "tournament")),
      controls,
      h("p.step", { "data-step": String(this.i) },
        this.i ? `seq ${entry.seq}/${n} · ${clock(entry.at_ms)} · ${describe(entry.action)}` : `the deal (0/${n})`,
        t.game === "gaps" ? ` · ${redealNo ? `after redeal ${redealNo}` : "first deal"}` : "",
        ` · status ${state.status}`),
      board,
      h("p.figures", figures),
      h("p.receipt.small", `log hash after seq ${this.i}: `, h("code", this.heads[this.i] || "")),
      this.error ? h("p.error", `The record stops being legal at ${this.error}`) : null,
      h("p.legend.small", "Keys: ←/→ step, Home/End, Space plays."));
  }
}
