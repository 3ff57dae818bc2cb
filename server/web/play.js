// /t/ID: play a tournament (signed in), or watch its standings (anyone). Keys as in the
// terminal client (client_cli/tui/app.py): Left/Right select a gap, Enter plays the card
// that fits it, or type a card code (6H, 10h, 6♥); Up/Down select the gap of the row
// above/below; Klondike: d draw, a auto, h hint, Escape drops a selection.

import { beaconLine } from "./beaconline.js";
import { parse as parseCard, code as cardCode, label } from "./cards.js";
import { gapTargets, gapsBoard, klondikeBoard, optionsText } from "./boards.js";
import { $, clock, fill, h, relative } from "./dom.js";
import { ServerError } from "./net.js";
import { StandingsPanel } from "./standings.js";
import { account, receipts } from "./store.js";
import { cellName } from "./actionwords.js";
import { acesFellNote, acesJustFell, isFixedTwo, rulesHref, takesText, variantLegend } from "./variantwords.js";
import { closedPanel } from "./verifypage.js";
import { t as tr, tn } from "./i18n.js";
import { addToCalendar } from "./calendarlinks.js";
import { hintWords, touchScreen } from "./hintwords.js";
import { closedText, endText } from "./endwords.js";
import { joinExtras } from "./joinform.js";


export async function playPage(main, link, id) {
  const page = new PlayPage(main, link, id);
  await page.start();
  return () => page.stop();
}

class PlayPage {
  constructor(main, link, id) {
    Object.assign(this, { main, link, id, state: null, summary: null, selected: null, sel: null,
      inflight: false, confirm: null, hint: null, note: "" });
    this.head = h("section.thead");
    this.boardEl = h("section.board", { "aria-label": tr("web.play.board_aria") });
    this.side = h("aside.side");
    fill(main, this.head, h("div.play", this.boardEl, this.side));
    this.keys = (e) => this.onKey(e);
    document.addEventListener("keydown", this.keys);
    this.timer = setInterval(() => this.tick(), 500);
    this.offs = [link.onReconnect(() => this.resync())];
  }

  stop() {
    document.removeEventListener("keydown", this.keys);
    clearInterval(this.timer);
    for (const off of this.offs) off();
    if (this.standings) this.standings.close();
  }

  async start() {
    await this.loadSummary();
    const me = account.name;
    this.standings = new StandingsPanel(this.link, this.id, me, { game: this.summary ? this.summary.game : null });
    this.standings.onClosed = () => this.closed();
    this.side.append(this.standings.el);
    this.standings.subscribe();
    await this.resync();
  }

  async loadSummary() {
    try {
      const list = await this.link.call("tournaments");
      this.summary = list.items.find((t) => t.id === this.id) || null;
    } catch {
      this.summary = null;
    }
    this.renderHead();
  }

  async closed() {
    await this.loadSummary();
    await this.resync();
  }

  /** The server's state is the truth: fetch it (after a reconnect too). */
  async resync() {
    if (!account.token) return this.render();
    try {
      this.setState(await this.link.call("state", { tournament: this.id }), true);
    } catch (exc) {
      if (!(exc instanceof ServerError)) return;
      this.state = null;
      if (exc.code !== "not_found" && exc.code !== "unauthorized") this.note = exc.message;
    }
    this.render();
  }

  setState(st, force = false) {
    if (!force && this.state && st.seq < this.state.seq) return;
    this.state = st;
    if (window.samedeal) window.samedeal.state = st; // read by the browser tests
    receipts.keep(this.id, account.name, st.seq, st.log_hash);
    if (st.game === "gaps") this.defaultGap();
    this.render();
  }

  // -- header, clock -----------------------------------------------------------------
  renderHead() {
    const t = this.summary;
    if (!t) return fill(this.head, h("h1", tr("web.play.tournament", { id: this.id })), h("p.muted", tr("web.play.not_found")));
    fill(this.head,
      h("h1", h("span", { translate: "no" }, t.name), " ", h(`span.tag.st-${t.status}`, tr(`web.status.${t.status}`)), t.void ? [" ", h("span.tag.void", tr("web.tag.void"))] : null),
      h("p.meta", optionsText(t.game, t.options), " · ", tn("web.entrants", t.entrants),
        t.time_limit_s ? [" · ", tr("web.per_game", { clock: clock(t.time_limit_s * 1000) })] : "",
        [" · ", h("a.rules-link", { href: rulesHref(t.options, t.game), "data-nav": "" }, tr("web.play.rules"))],
        " · ", h("span.countdown", { "data-starts": t.starts_at, "data-ends": t.ends_at, "data-closed": t.closed_at || "", "data-status": t.status }),
        t.status === "scheduled" ? [" · ", addToCalendar(t.id)] : null),
      h("details.audit.small", h("summary", tr("web.audit.summary")),
        h("p.commit", tr("web.commitment.label"), " ", h("code", { translate: "no" }, t.commitment), t.seed ? [" · ", tr("web.seed.label"), " ", h("code", { translate: "no" }, t.seed)] : null),
        h("p.muted", tr(t.seed ? "web.seed.explain" : "web.commitment.explain"))), beaconLine(t));
    this.tick();
  }

  /** A scheduled tournament past its start (its beacon round awaited, or the server's next
   * lifecycle tick): its summary asked for again every 5 s until it opens. */
  refreshWhenDue() {
    const t = this.summary;
    const now = this.link.now();
    if (!t || t.status !== "scheduled" || now < Date.parse(t.starts_at) || now - (this.asked || 0) < 5000) return;
    this.asked = now;
    this.loadSummary().then(() => this.render());
  }

  tick() {
    this.refreshWhenDue();
    const cd = $(".countdown", this.head);
    if (cd) {
      const now = this.link.now();
      const st = cd.dataset.status;
      cd.textContent = st === "scheduled" ? tr("web.countdown.opens", { when: relative(Date.parse(cd.dataset.starts) - now) })
        : st === "open" ? tr("web.countdown.closes", { when: relative(Date.parse(cd.dataset.ends) - now) }) : closedText(cd.dataset.closed, cd.dataset.ends);
    }
    const el = $(".game-clock", this.boardEl);
    if (el && this.state) {
      const st = this.state;
      const playing = st.status === "playing";
      const used = playing ? this.link.now() - Date.parse(st.started_at) : st.time_ms;
      const left = Date.parse(st.deadline) - this.link.now();
      el.textContent = tr("web.play.time", { clock: clock(used) }) + (playing ? ` · ${tr("web.play.time_left", { clock: clock(left) })}` : "");
    }
  }

  // -- the board ---------------------------------------------------------------------
  render() {
    const st = this.state;
    const t = this.summary;
    if (!st) {
      const parts = [];
      if (t && t.status === "closed") parts.push(this.closedEl());
      else if (!account.token) {
        parts.push(h("div.notice", h("p", tr("web.play.watching")), h("p", h("a", { href: "/", "data-nav": "" }, tr("web.play.register_to_play")))));
      } else if (t && t.status === "open") {
        if (!this.extras) this.extras = joinExtras(this.link, t); // v1.4: an entry code, a battle's club
        parts.push(h("div.notice", h("p", tr("web.play.join_note")), this.extras.el,
          h("button.primary.join", { onclick: () => this.join() }, tr("web.play.join"))));
      } else if (t && t.status === "scheduled") {
        parts.push(h("div.notice", h("p", tr("web.play.not_open"))));
      }
      if (this.note) parts.push(h("p.error", this.note));
      return fill(this.boardEl, parts);
    }
    const board = st.game === "gaps" ? this.gapsView(st) : this.klondikeView(st);
    const after = t && t.status === "closed" ? this.closedEl() : null;
    fill(this.boardEl, board, after);
    this.tick();
  }

  closedEl() {
    if (!this.closedPanel) this.closedPanel = closedPanel(this.link, this.id, this.summary);
    return this.closedPanel;
  }

  async join() {
    try {
      this.setState(await this.link.call("join", { tournament: this.id, ...(this.extras ? this.extras.fields() : {}) }), true);
      this.loadSummary();
    } catch (exc) {
      this.note = exc.message;
      this.render();
    }
  }

  status(st, figures, actions) {
    const over = st.status !== "playing";
    const receipt = h("details.audit.small", h("summary", tr("web.audit.summary")),
      h("p.receipt", { title: tr("web.receipt.title") }, tr("web.receipt.label", { seq: st.seq }), " · ", h("code", { translate: "no" }, st.log_hash ? st.log_hash.slice(0, 16) + "…" : "—")),
      h("p.muted", tr("web.receipt.explain")));
    return h("div.status-bar",
      h("p.figures", figures, h("span.game-clock")),
      over ? h(`p.over.st-${st.status}`, endText(st, this.summary)) : actions,
      this.confirm ? this.confirmBox() : null,
      h("p.message", { role: "status" }, this.note || ""), receipt);
  }

  confirmBox() {
    const { text, action } = this.confirm;
    return h("div.confirm", { role: "alertdialog", "aria-label": text }, h("span", text),
      h("button.danger.yes", { onclick: () => { this.confirm = null; this.act(action); } }, tr("web.yes")),
      h("button.no", { onclick: () => { this.confirm = null; this.render(); } }, tr("web.no")));
  }

  ask(text, action) {
    this.confirm = { text, action };
    this.render();
    const yes = $(".confirm .yes", this.boardEl);
    if (yes) yes.focus();
  }

  async act(action) {
    if (this.inflight || !this.state) return;
    this.inflight = true;
    this.hint = null;
    this.sel = null;
    const seq = this.state.seq + 1;
    try {
      const st = await this.link.call("act", { tournament: this.id, seq, action });
      this.note = st.duplicate ? tr("web.play.duplicate") : "";
      this.setState(st);
    } catch (exc) {
      this.note = exc.message;
      if (exc instanceof ServerError && exc.code === "out_of_sync") await this.resync();
      else this.render();
    } finally {
      this.inflight = false;
    }
  }

  // -- Gaps ----------------------------------------------------------------------------
  gaps() {
    const out = [];
    this.state.view.grid.forEach((row, r) => row.forEach((c, k) => c === null && out.push([r, k])));
    return out;
  }

  defaultGap() {
    const gaps = this.gaps();
    const targets = new Set(this.state.view.legal.map((m) => m.to.join(",")));
    const cur = this.selected && gaps.find((g) => g[0] === this.selected[0] && g[1] === this.selected[1]);
    if (!cur) this.selected = gaps.find((g) => targets.has(g.join(","))) || gaps[0] || null;
  }

  gapsView(st) {
    const v = st.view;
    const p = st.progress;
    const fits = gapTargets(v);
    const sel = this.selected;
    const selFits = sel ? fits.get(sel.join(",")) || [] : [];
    const canRedeal = v.blocked && v.redeals_left > 0;
    const actions = h("div.actions",
      h("p.where", !sel ? tr("web.gaps.no_selection") : v.blocked ? (canRedeal ? tr("web.gaps.blocked_redeal") : tr("web.gaps.blocked_none"))
        : selFits.length ? tr("web.gaps.takes_enter", { cell: cellName(sel), cards: takesText(this.summary && this.summary.options, v.grid, sel, selFits), card: label(selFits[0]) })
          : tr("web.gaps.dead", { cell: cellName(sel) })),
      h("form.typed", { onsubmit: (e) => { e.preventDefault(); this.typed(e.target.elements.card); } },
        h("label", { for: "card-input" }, tr("web.gaps.card_label"), " "),
        h("input#card-input", { name: "card", autocomplete: "off", size: "10", placeholder: tr("web.gaps.card_placeholder"), "aria-label": tr("web.gaps.card_aria") })),
      h("button.redeal", { disabled: !canRedeal, onclick: () => this.ask(tn("web.gaps.redeal_ask", v.redeals_left), { kind: "redeal" }) }, tn("web.gaps.redeal_button", v.redeals_left)),
      h("button.resign.danger", { onclick: () => this.ask(tr("web.gaps.resign_ask"), { kind: "resign" }) }, tr("web.gaps.resign")));
    const figures = h("span", tr("web.gaps.figures", { placed: p.cards_in_place, redeals: v.redeals_left, score: p.score }), " · ");
    const options = this.summary ? this.summary.options : null;
    const acesFell = acesJustFell(options, st.events);
    return h("div.gaps-play",
      gapsBoard(v, { selected: st.status === "playing" ? sel : null, onCell: st.status === "playing" ? (r, c, code) => this.clickCell(r, c, code) : null, highlight: (st.events || []).filter((e) => e.type === "moved").map((e) => e.card), options, acesFell }),
      h("p.legend.small", tr(touchScreen() ? "web.gaps.legend_touch" : "web.gaps.legend"),
        variantLegend(options)), acesFell ? acesFellNote() : null, this.status(st, figures, actions));
  }

  clickCell(r, c, code) {
    const legal = this.state.view.legal;
    if (code === null) {
      this.selected = [r, c];
      const moves = legal.filter((m) => m.to[0] === r && m.to[1] === c);
      if (moves.length === 1) return this.act({ kind: "move", card: moves[0].card, to: moves[0].to });
      this.note = !moves.length ? tr("web.gaps.dead_nothing", { cell: cellName([r, c]) })
        : c === 0 ? tr("web.gaps.takes_any_two", { cell: cellName([r, c]), card: label(moves[0].card) })
          : tr("web.gaps.takes_click", { cell: cellName([r, c]), cards: takesText(this.summary && this.summary.options, this.state.view.grid, [r, c], moves.map((m) => m.card)), card: label(moves[0].card) });
      return this.render();
    }
    if (isFixedTwo(this.summary && this.summary.options, c, code)) {
      this.note = tr("web.gaps.fixed_two", { card: label(code) });
      return this.render();
    }
    const moves = legal.filter((m) => m.card === code);
    if (!moves.length) {
      this.note = tr("web.gaps.fits_none", { card: label(code) });
      return this.render();
    }
    const sel = this.selected;
    const chosen = moves.find((m) => sel && m.to[0] === sel[0] && m.to[1] === sel[1]) || moves[0];
    return this.act({ kind: "move", card: chosen.card, to: chosen.to });
  }

  typed(input) {
    const text = input.value.trim();
    input.value = "";
    const low = text.toLowerCase();
    if (!text) return this.enter();
    if (low === "redeal") return this.act({ kind: "redeal" });
    if (low === "resign") return this.ask(tr("web.gaps.resign_ask"), { kind: "resign" });
    let card;
    try {
      card = cardCode(parseCard(text));
    } catch {
      this.note = tr("web.gaps.bad_card", { text });
      return this.render();
    }
    this.clickCard(card);
  }

  clickCard(card) {
    const sel = this.selected;
    const moves = this.state.view.legal.filter((m) => m.card === card);
    if (!moves.length) {
      this.note = tr("web.gaps.fits_none", { card: label(card) });
      return this.render();
    }
    const chosen = moves.find((m) => sel && m.to[0] === sel[0] && m.to[1] === sel[1]) || moves[0];
    this.act({ kind: "move", card: chosen.card, to: chosen.to });
  }

  enter() {
    const sel = this.selected;
    const fits = this.state.view.legal.filter((m) => sel && m.to[0] === sel[0] && m.to[1] === sel[1]);
    if (!fits.length) {
      this.note = tr("web.gaps.takes_nothing");
      return this.render();
    }
    this.act({ kind: "move", card: fits[0].card, to: fits[0].to });
  }

  selectStep(step, vertical = false) {
    const gaps = this.gaps();
    if (!gaps.length) return;
    let i = gaps.findIndex((g) => this.selected && g[0] === this.selected[0] && g[1] === this.selected[1]);
    if (vertical && this.selected) {
      const rows = gaps.filter((g) => (step > 0 ? g[0] > this.selected[0] : g[0] < this.selected[0]));
      const pick = step > 0 ? rows[0] : rows[rows.length - 1];
      if (pick) this.selected = pick;
    } else {
      i = i < 0 ? (step > 0 ? -1 : 0) : i;
      this.selected = gaps[(i + step + gaps.length) % gaps.length];
    }
    this.note = "";
    this.render();
  }

  onKey(e) {
    if (!this.state || this.state.status !== "playing") return;
    const typing = e.target instanceof HTMLInputElement;
    if (this.confirm) {
      if (e.key === "Escape") { this.confirm = null; this.render(); }
      return;
    }
    if (this.state.game === "gaps") {
      if (typing && e.target.value) return; // Enter submits the typed card
      const keys = { ArrowLeft: () => this.selectStep(-1), ArrowRight: () => this.selectStep(1),
        ArrowUp: () => this.selectStep(-1, true), ArrowDown: () => this.selectStep(1, true), Enter: () => this.enter() };
      if (keys[e.key]) {
        e.preventDefault();
        keys[e.key]();
      }
      return;
    }
    if (typing) return;
    const keys = { d: () => this.act({ kind: "draw" }), a: () => this.act({ kind: "auto" }), h: () => this.askHint(),
      Escape: () => { this.sel = null; this.render(); } };
    if (keys[e.key]) {
      e.preventDefault();
      keys[e.key]();
    }
  }

  // -- Klondike ------------------------------------------------------------------------
  klondikeView(st) {
    const v = st.view;
    const p = st.progress;
    const t = this.summary;
    const hints = t ? !!(t.options && t.options.hints) : false;
    const playing = st.status === "playing";
    const on = playing ? {
      stock: () => this.act({ kind: "draw" }),
      pick: (place, count, code) => this.pick(place, count, code),
      drop: (place) => this.drop(place),
      dragged: (from, to, count) => this.move(from, to, count),
      auto: (place, code) => this.move(place, `f${code[1]}`, 1),
    } : null;
    const left = v.recycles_left === null ? tr("web.klondike.unlimited") : String(v.recycles_left);
    const actions = h("div.actions",
      h("button.draw", { onclick: () => this.act({ kind: "draw" }) }, v.stock ? tr("web.klondike.draw") : tr("web.klondike.recycle")),
      h("button.auto", { onclick: () => this.act({ kind: "auto" }) }, tr("web.klondike.auto")),
      hints ? h("button.hint", { onclick: () => this.askHint() }, tr("web.klondike.hint")) : null,
      h("button.resign.danger", { onclick: () => this.ask(tr("web.klondike.give_up_ask"), { kind: "resign" }) }, tr("web.klondike.give_up")),
      v.no_moves ? h("p.warn", tr("web.klondike.no_moves_found")) : null);
    const figures = h("span", tr("web.klondike.figures", { home: p.cards_home, score: p.score, moves: p.moves, recycles: left }), " · ");
    return h("div.klondike-play",
      klondikeBoard(v, { sel: this.sel, on, hint: this.hint }),
      h("p.legend.small", tr((hints ? "web.klondike.legend_hints" : "web.klondike.legend") + (touchScreen() ? "_touch" : ""))),
      this.status(st, figures, actions));
  }

  pick(place, count, code) {
    if (this.sel && this.sel.from === place && this.sel.count === count) this.sel = null;
    else {
      const index = place[0] === "t" ? this.state.view.tableau[+place[1]].up.length - count : null;
      this.sel = { from: place, count, index, card: code };
    }
    this.note = this.sel ? (count > 1 ? tn("web.klondike.selected_more", count - 1, { card: label(code) }) : tr("web.klondike.selected", { card: label(code) })) : "";
    this.render();
  }

  drop(place) {
    if (!this.sel) return;
    const { from, count } = this.sel;
    this.sel = null;
    if (from === place) return this.render();
    this.move(from, place, count);
  }

  move(from, to, count) {
    const action = { kind: "move", from, to };
    if (count > 1) action.count = count;
    this.act(action);
  }

  async askHint() {
    try {
      const reply = await this.link.call("hint", { tournament: this.id });
      this.hint = reply.action;
      this.note = reply.action ? tr("web.klondike.hint_is", { action: hintWords(reply.action, this.state && this.state.view) }) : tr("web.klondike.no_moves");
    } catch (exc) {
      this.note = exc.message;
    }
    this.render();
  }
}
