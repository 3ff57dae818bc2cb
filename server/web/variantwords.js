// The Gaps family variants (RULES-GAPS.md v1.4) in words, for the pages: how a card enters
// a gap (free_parking's two ways), each variant's one-line legend on the board, and where
// its rules are.

import { RANKS, label } from "./cards.js";
import { h } from "./dom.js";
import { orList, t } from "./i18n.js";

/** How a card enters the gap at column `c` of `row` (codes, null for a gap): "two" in
 * column 0, "left" when it follows its left neighbour, else "right" (free_parking: it
 * precedes its right neighbour). */
export function wayIn(row, c, card) {
  if (c === 0) return "two";
  const left = row[c - 1];
  const follows = left && left[1] === card[1] && RANKS.indexOf(card[0]) === RANKS.indexOf(left[0]) + 1;
  return follows ? "left" : "right";
}

/** "after its left neighbour" / "before its right neighbour" in the page's language. */
export function wayWords(way) {
  return t(`web.way.${way}`);
}

/** A Gaps variant's name and its words ("Montana: the 2s pre-placed in the first column"). */
export function variantTitle(name) {
  return t(`web.variant.${name}.title`);
}
export function variantWords(name) {
  return t(`web.variant.${name}.words`);
}

/** "6♥ (after its left neighbour) or 4♥ (before its right neighbour)". */
export function waysText(row, c, cards) {
  return orList(cards.map((card) => `${label(card)} (${wayWords(wayIn(row, c, card))})`));
}

/** What the gap at [r, c] of `grid` takes (`fits`), in words; under free_parking with
 * each card's way in. */
export function takesText(options, grid, [r, c], fits) {
  const ways = !!options && options.variant === "free_parking" && c > 0;
  return ways ? waysText(grid[r], c, fits) : orList(fits.map(label));
}

const LEGEND = new Set(["montana", "free_parking", "addiction"]);

/** The rules page of a tournament's game, at a Gaps variant's section. */
export function rulesHref(options, game = "gaps") {
  if (game === "klondike") return "/rules/klondike";
  const variant = options && options.variant;
  return variant && variant !== "gaps" ? `/rules/gaps#${variant}` : "/rules/gaps";
}

/** The variant's line after the board's legend ("" for plain Gaps). */
export function variantLegend(options) {
  const variant = options && options.variant;
  return LEGEND.has(variant) ? ` ${t(`web.legend.${variant}`)}` : "";
}

/** A Montana 2 in column 0: fixed, it never moves. */
export function isFixedTwo(options, c, code) {
  return !!options && options.variant === "montana" && c === 0 && code[0] === "2";
}

/** After an addiction redeal (the last action's events): every gap is where an ace fell. */
export function acesJustFell(options, events) {
  return !!options && options.variant === "addiction" && (events || []).some((e) => e.type === "redealt");
}

export function acesFellNote() {
  return h("p.aces-fell", t("web.gaps.aces_fell"));
}
