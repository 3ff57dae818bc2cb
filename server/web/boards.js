// The two boards, drawn from a PROTOCOL.md view. Used live (play) and read-only (replay).
// Suits are told apart by symbol and by colour (red/black plus a tint per suit), so the
// board reads without colour; every card and gap has an accessible name.

import { SUIT_NAMES, SYMBOLS, label } from "./cards.js";
import { h } from "./dom.js";

const RANK_NAMES = { A: "ace", T: "10", J: "jack", Q: "queen", K: "king" };

export function cardName(code) {
  return `${RANK_NAMES[code[0]] || code[0]} of ${SUIT_NAMES[code[1]]}`;
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

/** The 4×13 grid. `selected` is the selected gap [r, c] (keyboard), `onCell(r, c, code)`
 * is called for a click on a card or a gap (code null). */
export function gapsBoard(view, { selected = null, onCell = null, highlight = null } = {}) {
  const fits = gapTargets(view);
  const grid = h("div.gaps-grid", { role: "grid", "aria-label": "Gaps board, 4 rows of 13" });
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
        const dead = !takes.length;
        const hintText = dead ? "✕" : c === 0 ? "2" : label(takes[0]);
        cell = h(`button.cell.gap.${dead ? "dead" : "live"}${isSel ? ".selected" : ""}`, {
          ...common,
          "aria-label": dead ? `dead gap, row ${r + 1} column ${c + 1}` : `gap, row ${r + 1} column ${c + 1}, takes ${takes.map(label).join(" or ")}`,
          title: dead ? "dead gap: nothing can enter it" : `takes ${takes.map(label).join(" or ")}`,
        }, h("span.gap-mark", { "aria-hidden": "true" }, hintText));
      } else {
        cell = cardFace(code, "button", common);
        cell.classList.add("cell");
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
  return h("span.card.back", { "aria-label": "face-down card", ...attrs });
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
    "aria-label": `stock, ${view.stock} cards${view.stock ? "" : view.waste_count ? ": draw to recycle" : ""}`,
    "data-place": "stock", onclick: live ? () => on.stock() : null, disabled: !live,
  }, view.stock ? back() : h("span.card.empty", "↻"), h("span.count", String(view.stock)));

  const wasteCards = view.waste.map((code, i) => {
    const top = i === view.waste.length - 1;
    const attrs = top && live ? { onclick: () => on.pick("waste", 1, code), ondblclick: () => on.auto("waste", code), ...dragAttrs("waste", 1) } : {};
    const el = cardFace(code, top ? "button" : "span", attrs);
    if (top && isSel("waste")) el.classList.add("selected");
    return el;
  });
  const waste = h(`div.pile.waste${marks("waste")}`, { "data-place": "waste", "aria-label": `waste, ${view.waste_count} cards` },
    wasteCards.length ? wasteCards : h("span.card.empty"), h("span.count", String(view.waste_count)));

  const founds = h("div.foundations");
  for (const s of ["C", "D", "H", "S"]) {
    const top = view.foundations[s];
    const place = `f${s}`;
    const el = h(`div.pile.foundation${marks(place)}`, {
      "data-place": place, "aria-label": `${SUIT_NAMES[s]} foundation${top ? `, up to ${cardName(top)}` : ", empty"}`,
      onclick: live ? () => (sel ? on.drop(place) : top && on.pick(place, 1, top)) : null, ...dropAttrs(place),
    }, top ? cardFace(top, "span", live ? dragAttrs(place, 1) : {}) : h(`span.card.empty.suit-${s}`, SYMBOLS[s]));
    if (isSel(place)) el.classList.add("selected");
    founds.append(el);
  }

  const cols = h("div.tableau");
  view.tableau.forEach((col, i) => {
    const place = `t${i}`;
    const pile = h(`div.column${marks(place)}`, {
      "data-place": place, "aria-label": `column ${i + 1}: ${col.down} face down, ${col.up.length} face up`,
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

export function optionsText(game, options = {}) {
  if (game === "gaps") return `Gaps · ${options.redeals ?? 2} redeals`;
  const parts = [`Klondike · draw ${options.draw ?? 1}`];
  parts.push(options.passes ? `${options.passes} passes` : "unlimited passes");
  if (options.guaranteed) parts.push("guaranteed deal");
  if (options.hints) parts.push("hints");
  return parts.join(" · ");
}
