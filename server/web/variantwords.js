// The Gaps family variants (RULES-GAPS.md v1.4) in words, for the pages: how a card enters
// a gap (free_parking's two ways), each variant's one-line legend on the board, and where
// its rules are.

import { RANKS, label } from "./cards.js";
import { h } from "./dom.js";

/** How a card enters the gap at column `c` of `row` (codes, null for a gap): "two" in
 * column 0, "left" when it follows its left neighbour, else "right" (free_parking: it
 * precedes its right neighbour). */
export function wayIn(row, c, card) {
  if (c === 0) return "two";
  const left = row[c - 1];
  const follows = left && left[1] === card[1] && RANKS.indexOf(card[0]) === RANKS.indexOf(left[0]) + 1;
  return follows ? "left" : "right";
}

export const WAY_WORDS = { left: "after its left neighbour", right: "before its right neighbour" };

/** "6♥ (after its left neighbour) or 4♥ (before its right neighbour)". */
export function waysText(row, c, cards) {
  return cards.map((card) => `${label(card)} (${WAY_WORDS[wayIn(row, c, card)]})`).join(" or ");
}

/** What the gap at [r, c] of `grid` takes (`fits`), in words; under free_parking with
 * each card's way in. */
export function takesText(options, grid, [r, c], fits) {
  const ways = !!options && options.variant === "free_parking" && c > 0;
  return ways ? waysText(grid[r], c, fits) : fits.map(label).join(" or ");
}

const LEGEND = {
  montana: "Montana: the 2s are fixed in the first column (ringed); each row builds its own suit.",
  free_parking: "Free Parking: a gap also takes the card one below its right neighbour: ◂ marks the card after the left neighbour, ▸ the card before the right one.",
  addiction: "Addiction: at a redeal the aces are shuffled back in and the gaps are where they fall.",
};

/** The rules page of a Gaps tournament, at its variant's section. */
export function rulesHref(options) {
  const variant = options && options.variant;
  return variant && variant !== "gaps" ? `/rules/gaps#${variant}` : "/rules/gaps";
}

/** The variant's line after the board's legend ("" for plain Gaps). */
export function variantLegend(options) {
  const text = LEGEND[options && options.variant];
  return text ? ` ${text}` : "";
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
  return h("p.aces-fell", "Redealt: the aces were shuffled in with the other cards and taken out where they fell; those cells are the new gaps.");
}
