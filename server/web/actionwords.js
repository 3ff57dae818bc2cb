// Actions and Gaps cells in words, as the pages say them (play, replay, analysis, rules).

import { label } from "./cards.js";
import { t, tn } from "./i18n.js";

/** A Gaps cell as people count, from 1 (the protocol's [row, col] count from 0). */
export function cellName([r, c]) {
  return t("web.cell", { row: r + 1, col: c + 1 });
}

/** An action in words: "move 6♥ to row 2, column 5", "move 2 cards from t3 to t5", "redeal". */
export function describe(action) {
  if (!action) return "";
  if (action.kind === "move" && action.card) return t("web.action.move_card", { card: label(action.card), cell: cellName(action.to) });
  if (action.kind === "move") {
    const params = { from: placeName(action.from), to: placeName(action.to) };
    return action.count > 1 ? tn("web.action.move_many", action.count, params) : t("web.action.move_one", params);
  }
  return t(`web.action.${action.kind}`);
}

/** A Klondike place in words: "column 3", "the waste", "the ♥ foundation", "the stock". */
export function placeName(place) {
  if (typeof place !== "string") return String(place);
  if (place[0] === "t") return t("web.place.column", { col: Number(place.slice(1)) + 1 });
  if (place[0] === "f") return t(`web.place.foundation_${place[1]}`);
  return t(`web.place.${place}`);
}
