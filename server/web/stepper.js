// Stepping through replayed states (the replay page, the analysis room): a step index in
// 0..last, the controls that move it (buttons, a slider, keys, Play) and jumps between marks
// (deals and redeals). `onStep` redraws the page for the new step.

import { h } from "./dom.js";
import { t } from "./i18n.js";

export class Stepper {
  constructor(last, onStep, marks = null) {
    Object.assign(this, { i: 0, last, onStep, marks, timer: null });
    this.keys = (e) => this.onKey(e);
    document.addEventListener("keydown", this.keys);
  }

  stop() {
    document.removeEventListener("keydown", this.keys);
    clearInterval(this.timer);
    this.timer = null;
  }

  /** Start again over `last` steps with other marks, at step 0 (paused). */
  reset(last, marks = null) {
    clearInterval(this.timer);
    Object.assign(this, { i: 0, last, marks, timer: null });
  }

  go(i) {
    this.i = Math.max(0, Math.min(this.last, i));
    this.onStep();
  }

  play() {
    if (this.timer) {
      clearInterval(this.timer);
      this.timer = null;
    } else {
      if (this.i === this.last) this.i = 0;
      this.timer = setInterval(() => {
        if (this.i >= this.last) this.play();
        else this.go(this.i + 1);
      }, 400);
    }
    this.onStep();
  }

  onKey(e) {
    const keys = { ArrowLeft: () => this.go(this.i - 1), ArrowRight: () => this.go(this.i + 1), Home: () => this.go(0),
      End: () => this.go(this.last), " ": () => this.play() };
    if (keys[e.key] && !(e.target instanceof HTMLInputElement) && !(e.target instanceof HTMLSelectElement)) {
      e.preventDefault();
      keys[e.key]();
    }
  }

  /** The controls for the current step; the mark jumps only when there are marks. */
  controls() {
    const { i, last, marks } = this;
    const slider = h("input.scrub", { type: "range", min: "0", max: String(last), value: String(i), "aria-label": t("web.step.slider") });
    slider.addEventListener("input", () => this.go(Number(slider.value)));
    return h("div.replay-controls",
      h("button.first", { onclick: () => this.go(0), "aria-label": t("web.step.first") }, "|◀"),
      marks ? h("button.prev-redeal", { onclick: () => this.go([...marks].reverse().find((k) => k < i) ?? 0), disabled: !i, title: t("web.step.prev_deal_title") }, "◀ ", t("web.step.prev_deal")) : null,
      h("button.prev", { onclick: () => this.go(i - 1), "aria-label": t("web.step.prev"), disabled: !i }, "◀"),
      h("button.playpause", { onclick: () => this.play() }, this.timer ? t("web.step.pause") : t("web.step.play")),
      h("button.next", { onclick: () => this.go(i + 1), "aria-label": t("web.step.next"), disabled: i === last }, "▶"),
      marks ? h("button.next-redeal", { onclick: () => this.go(marks.find((k) => k > i) ?? last), disabled: i === last, title: t("web.step.next_deal_title") }, t("web.step.next_deal"), " ▶") : null,
      h("button.last", { onclick: () => this.go(last), "aria-label": t("web.step.last") }, "▶|"), slider);
  }
}

/** The steps that start a deal: 0 and the step after each redeal among `actions`. */
export function dealMarks(actions, steps) {
  const marks = [0];
  actions.forEach((a, k) => {
    if (a.kind === "redeal" && k + 1 <= steps) marks.push(k + 1);
  });
  return marks;
}
