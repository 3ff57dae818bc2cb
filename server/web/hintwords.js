// Issue 39: a Klondike hint said in cards ("move the 7♣ onto the 8♥"), read off the board
// the player sees; and the touch screen's words ("tap", not "click") where the pointer is
// a finger (matchMedia "(pointer: coarse)").

import { describe, placeName } from "./actionwords.js";
import { label } from "./cards.js";
import { t, tn } from "./i18n.js";

/** True on a touch screen (a coarse pointer): its legends say "tap". */
export function touchScreen() {
  return typeof matchMedia === "function" && matchMedia("(pointer: coarse)").matches;
}

/** A hint's action in cards on `view` (the Klondike VIEW it was given for); an action it
 * cannot read so (a draw, a recycle) in the actions' own words. */
export function hintWords(action, view) {
  if (!action || action.kind !== "move" || !view) return describe(action);
  const count = action.count || 1;
  const card = movingCard(action.from, count, view);
  if (!card || typeof action.to !== "string") return describe(action);
  const params = { card: label(card) };
  if (action.to[0] === "f") return t("web.hint.home", params);
  if (action.to[0] !== "t") return describe(action);
  const col = view.tableau[Number(action.to.slice(1))];
  const top = col && col.up.length ? col.up[col.up.length - 1] : null;
  if (top) {
    const onto = { ...params, target: label(top) };
    return count > 1 ? tn("web.hint.onto_many", count - 1, onto) : t("web.hint.onto", onto);
  }
  const into = { ...params, place: placeName(action.to) };
  return count > 1 ? tn("web.hint.to_empty_many", count - 1, into) : t("web.hint.to_empty", into);
}

function movingCard(from, count, view) {
  if (from === "waste") return view.waste.length ? view.waste[view.waste.length - 1] : null;
  if (typeof from !== "string") return null;
  if (from[0] === "t") {
    const col = view.tableau[Number(from.slice(1))];
    return col && col.up.length >= count ? col.up[col.up.length - count] : null;
  }
  return from[0] === "f" ? view.foundations[from[1]] || null : null;
}
