// Actions and Gaps cells in words, as the pages say them (play, replay, analysis, rules).

import { label } from "./cards.js";

/** A Gaps cell as people count, from 1 (the protocol's [row, col] count from 0). */
export function cellName([r, c]) {
  return `row ${r + 1}, column ${c + 1}`;
}

/** An action in words: "move 6♥ to row 2, column 5", "move 2 cards from t3 to t5", "redeal". */
export function describe(action) {
  if (!action) return "";
  if (action.kind === "move" && action.card) return `move ${label(action.card)} to ${cellName(action.to)}`;
  if (action.kind === "move") return `move ${action.count > 1 ? `${action.count} cards ` : ""}from ${action.from} to ${action.to}`;
  return action.kind;
}
