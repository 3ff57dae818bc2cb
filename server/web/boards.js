// The two boards, drawn from a PROTOCOL.md view. Used live (play) and read-only (replay).
// Suits are told apart by symbol and by colour (red/black plus a tint per suit), so the
// board reads without colour; every card and gap has an accessible name.

import { CODES, SUIT_NAMES, SYMBOLS, label } from "./cards.js";
import { h } from "./dom.js";
import { has, orList, t, tn } from "./i18n.js";
import { VARIANTS, variantOf } from "./gaps.js";
import { variantTitle, variantWords, wayIn, wayWords } from "./variantwords.js";

const RANK_NAMES = { A: "ace", T: "10", J: "jack", Q: "queen", K: "king" };

/** A card's whole name in the page's language ("seis de copas", "el as de picas"): the
 * catalogue's card.<code>, never assembled (English assembled only without a catalogue). */
export function cardName(code) {
  return has(`card.${code}`) ? t(`card.${code}`) : `${RANK_NAMES[code[0]] || code[0]} of ${SUIT_NAMES[code[1]]}`;
}

/** A face-up card: rank and suit symbol, coloured by suit. */
export function cardFace(code, tag = "span", attrs = {}) {
  const red = code[1] === "H" || code[1] === "D";
  return h(`${tag}.card.suit-${code[1]}.${red ? "red" : "black"}`, {
    "aria-label": cardName(code), "data-card": code, ...attrs,
  }, h("span.rank", label(code).slice(0, -1)), h("span.sym", { "aria-hidden": "true" }, SYMBOLS[code[1]]));
}

// -- Gaps ----------------------------------------------------------------------------
/** What fits each gap: Map "r,c" -> [cards], from the view's legal moves. */
export function gapTargets(view) {
  const fits = new Map();
  for (const m of view.legal || []) {
    const key = m.to.join(",");
    if (!fits.has(key)) fits.set(key, []);
    fits.get(key).push(m.card);
  }
  return fits;
}

/** Where the aces fell in a replayed addiction deal or redeal (Map "r,c" -> ace code), for
 * gapsBoard's `aces`; null for the other variants or a state after a move. */
export function dealAces(state, atDeal) {
  if (!atDeal || !state.variant || !state.variant.acesOnRedeal || !state.aces) return null;
  const out = new Map();
  for (const [cell, ace] of state.aces) out.set(`${Math.floor(cell / 13)},${cell % 13}`, CODES[ace]);
  return out;
}

/** A live gap's mark: what it takes. Under free_parking each card shows its way in: ◂ for
 * the left neighbour's rule, ▸ for the right neighbour's. */
function gapMark(takes, ways, twoWays) {
  if (!twoWays || ways[0] === "two") return h("span.gap-mark", { "aria-hidden": "true" }, ways[0] === "two" ? "2" : label(takes[0]));
  return h("span.gap-mark.ways", { "aria-hidden": "true" }, takes.map((card, k) => h(`span.way.by-${ways[k]}`,
    ways[k] === "left" ? ["◂", label(card)] : [label(card), "▸"])));
}

/** The 4×13 grid. `selected` is the selected gap [r, c] (keyboard), `onCell(r, c, code)`
 * is called for a click on a card or a gap (code null). `options` are the tournament's
 * (its variant): montana's 2s are shown fixed, free_parking's gaps show both ways in.
 * `aces` (Map "r,c" -> ace code) marks the gaps where the aces fell in this deal; `acesFell`
 * marks every gap so without naming the ace (a live addiction redeal: the seed is secret). */
export function gapsBoard(view, { selected = null, onCell = null, highlight = null, options = null, aces = null, acesFell = false } = {}) {
  const variant = variantOf(options);
  const fits = gapTargets(view);
  const grid = h(`div.gaps-grid.v-${variant.name}`, { role: "grid", "aria-label": t("web.board.gaps_aria", { variant: variantTitle(variant.name) }), "data-variant": variant.name });
  view.grid.forEach((row, r) => {
    const line = h("div.gaps-row", { role: "row" });
    row.forEach((code, c) => {
      const isSel = selected && selected[0] === r && selected[1] === c;
      const common = {
        role: "gridcell", "data-row": r, "data-col": c, tabindex: "-1",
        onclick: onCell ? () => onCell(r, c, code) : null,
      };
      let cell;
      if (code === null) {
        const takes = fits.get(`${r},${c}`) || [];
        const ways = takes.map((card) => wayIn(row, c, card));
        const dead = !takes.length;
        const fell = aces ? aces.get(`${r},${c}`) || null : null;
        const aceNote = fell ? t("web.board.ace_fell", { card: cardName(fell) }) : acesFell ? t("web.board.an_ace_fell") : "";
        const taking = orList(takes.map((card, k) => (variant.rightRule && c > 0 ? `${label(card)} (${wayWords(ways[k])})` : label(card))));
        cell = h(`button.cell.gap.${dead ? "dead" : "live"}${isSel ? ".selected" : ""}${fell || acesFell ? ".ace-gap" : ""}`, {
          ...common,
          "data-ways": ways.join(" ") || null,
          "data-ace": fell,
          "aria-label": dead ? t("web.board.dead_gap_aria", { row: r + 1, col: c + 1, ace: aceNote }) : t("web.board.gap_aria", { row: r + 1, col: c + 1, ace: aceNote, cards: taking }),
          title: dead ? t("web.board.dead_gap_title", { ace: aceNote }) : t("web.board.gap_title", { cards: taking, ace: aceNote }),
        }, dead ? h("span.gap-mark", { "aria-hidden": "true" }, "✕") : gapMark(takes, ways, variant.rightRule),
        fell ? h("span.ace-mark", { "aria-hidden": "true" }, label(fell)) : null);
      } else {
        const fixed = variant.fixedTwos && c === 0 && code[0] === "2";
        cell = cardFace(code, "button", fixed ? { ...common, "aria-label": t("web.board.fixed_aria", { card: cardName(code) }), title: t("web.board.fixed_title") } : common);
        cell.classList.add("cell");
        if (fixed) cell.classList.add("fixed");
        if (highlight && highlight.includes(code)) cell.classList.add("moved");
      }
      line.append(cell);
    });
    grid.append(line);
  });
  return grid;
}

// -- Klondike ------------------------------------------------------------------------
function back(attrs = {}) {
  return h("span.card.back", { "aria-label": t("web.board.face_down"), ...attrs });
}

/** The table: stock, waste, foundations, 7 columns. `sel` = {from, count} is the selected
 * source; `on` = {stock(), pick(place, count, card), drop(place), auto(place)}; `hint`
 * = an action to outline. Drag and drop moves a group onto a column or foundation. */
export function klondikeBoard(view, { sel = null, on = null, hint = null } = {}) {
  const live = !!on;
  const isSel = (place, index = null) => sel && sel.from === place && (index === null || index >= sel.index);
  const marks = (place) => (hint && (hint.from === place || hint.to === place) ? " hinted" : "");
  const dragAttrs = (place, count) => live ? {
    draggable: "true",
    ondragstart: (e) => {
      e.dataTransfer.setData("text/plain", JSON.stringify({ from: place, count }));
      e.dataTransfer.effectAllowed = "move";
    },
  } : {};
  const dropAttrs = (place) => live ? {
    ondragover: (e) => e.preventDefault(),
    ondrop: (e) => {
      e.preventDefault();
      try {
        const { from, count } = JSON.parse(e.dataTransfer.getData("text/plain"));
        on.dragged(from, place, count);
      } catch { /* not ours */ }
    },
  } : {};

  const stock = h(`button.pile.stock${marks("stock")}`, {
    "aria-label": tn("web.board.stock_aria", view.stock) + (view.stock ? "" : view.waste_count ? t("web.board.draw_to_recycle") : ""),
    "data-place": "stock", onclick: live ? () => on.stock() : null, disabled: !live,
  }, view.stock ? back() : h("span.card.empty", "↻"), h("span.count", String(view.stock)));

  const wasteCards = view.waste.map((code, i) => {
    const top = i === view.waste.length - 1;
    const attrs = top && live ? { onclick: () => on.pick("waste", 1, code), ondblclick: () => on.auto("waste", code), ...dragAttrs("waste", 1) } : {};
    const el = cardFace(code, top ? "button" : "span", attrs);
    if (top && isSel("waste")) el.classList.add("selected");
    return el;
  });
  const waste = h(`div.pile.waste${marks("waste")}`, { "data-place": "waste", "aria-label": tn("web.board.waste_aria", view.waste_count) },
    wasteCards.length ? wasteCards : h("span.card.empty"), h("span.count", String(view.waste_count)));

  const founds = h("div.foundations");
  for (const s of ["C", "D", "H", "S"]) {
    const top = view.foundations[s];
    const place = `f${s}`;
    const el = h(`div.pile.foundation${marks(place)}`, {
      "data-place": place, "aria-label": top ? t(`web.board.foundation_${s}_up_to`, { card: cardName(top) }) : t(`web.board.foundation_${s}_empty`),
      onclick: live ? () => (sel ? on.drop(place) : top && on.pick(place, 1, top)) : null, ...dropAttrs(place),
    }, top ? cardFace(top, "span", live ? dragAttrs(place, 1) : {}) : h(`span.card.empty.suit-${s}`, SYMBOLS[s]));
    if (isSel(place)) el.classList.add("selected");
    founds.append(el);
  }

  const cols = h("div.tableau");
  view.tableau.forEach((col, i) => {
    const place = `t${i}`;
    const pile = h(`div.column${marks(place)}`, {
      "data-place": place, "aria-label": t("web.board.column_aria", { col: i + 1, down: col.down, up: col.up.length }),
      onclick: live ? (e) => { if (e.target === pile && sel) on.drop(place); } : null, ...dropAttrs(place),
    });
    for (let k = 0; k < col.down; k++) pile.append(back());
    col.up.forEach((code, k) => {
      const count = col.up.length - k;
      const el = cardFace(code, live ? "button" : "span", live ? {
        onclick: (e) => { e.stopPropagation(); sel ? (sel.from === place ? on.pick(place, count, code) : on.drop(place)) : on.pick(place, count, code); },
        ondblclick: k === col.up.length - 1 ? () => on.auto(place, code) : null,
        ...dragAttrs(place, count),
      } : {});
      if (isSel(place, k)) el.classList.add("selected");
      pile.append(el);
    });
    if (!col.down && !col.up.length) pile.append(h("span.card.empty", { "aria-hidden": "true" }, "K"));
    cols.append(pile);
  });
  return h("div.klondike", h("div.klondike-top", stock, waste, h("span.spacer"), founds), cols);
}

/** A tournament's options in words (the lobby, the headers, the series). */
export function optionsText(game, options = {}) {
  if (game === "gaps") {
    const variant = variantOf(options);
    const redeals = options.redeals ?? variant.redeals;
    const parts = [variant.name === "gaps" ? t("web.game.gaps") : `${t("web.game.gaps")} · ${variantWords(variant.name)}`];
    parts.push(tn(options.redeal === "reshuffle_all" ? "web.options.redeals_reshuffle" : "web.options.redeals", redeals));
    if (options.winnable) parts.push(t("web.options.winnable"));
    return parts.join(" · ");
  }
  const parts = [`${t("web.game.klondike")} · ${t("web.options.draw", { draw: options.draw ?? 1 })}`];
  parts.push(options.passes ? tn("web.options.passes", options.passes) : t("web.options.unlimited_passes"));
  if (options.guaranteed) parts.push(t("web.options.guaranteed"));
  if (options.hints) parts.push(t("web.options.hints"));
  return parts.join(" · ");
}

export { VARIANTS };
