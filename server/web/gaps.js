// Gaps (Montana), variant "Semicolon": RULES-GAPS.md, mirroring server/games/gaps.py.
// The grid is 52 cells row-major (cell = row * 13 + col): a card 0..51 or GAP.

import * as cards from "./cards.js";
import * as drbg from "./drbg.js";
import {
  FieldError, IllegalAction, LOST, MalformedAction, PLAYING, RESIGNED, WON,
  discriminate, isObject, laxInt, noExtras, strictInt,
} from "./rules.js";

export const ROWS = 4;
export const COLS = 13;
export const GAP = -1;
export const MAX_REDEALS = 3;
const TWOS = cards.DECK.filter((c) => cards.rank(c) === cards.TWO);

export const cellOf = (row, col) => row * COLS + col;
export const rowCol = (cell) => [Math.floor(cell / COLS), cell % COLS];
const where = (cell) => `[${rowCol(cell).join(", ")}]`;

/** The preserved run of a row: cards from a 2 in column 0 going up in one suit. */
export function runLength(grid, row) {
  const start = row * COLS;
  const card = grid[start];
  if (card === GAP || card % 13 !== cards.TWO) return 0;
  let n = 1;
  while (n < COLS - 1 && grid[start + n] === card + n) n++;
  return n;
}

/** The one card that fits a gap outside column 0, or null when the gap is dead. */
export function neededCard(grid, gap) {
  const left = grid[gap - 1];
  if (left === GAP || left % 13 === cards.KING) return null;
  return left + 1;
}

export function isBlocked(grid) {
  for (let g = 0; g < grid.length; g++) {
    if (grid[g] !== GAP) continue;
    if (g % COLS === 0 || neededCard(grid, g) !== null) return false;
  }
  return true;
}

export const KEEP_RUNS = "keep_runs";
export const RESHUFFLE_ALL = "reshuffle_all";

/** The layout of deal attempt `attempt` (0: `gaps/deal`, a >= 1: `gaps/deal/a`). */
export async function dealGrid(seed, attempt = 0) {
  const label = attempt ? `${drbg.gapsDealLabel()}/${attempt}` : drbg.gapsDealLabel();
  const deck = await drbg.shuffled(seed, label, cards.DECK);
  return deck.map((c) => (cards.rank(c) === cards.ACE ? GAP : c));
}

/** Redeal k: keep each row's run (none under reshuffle_all), shuffle the rest. */
export async function redealGrid(grid, seed, playerId, k, rule = KEEP_RUNS) {
  const runs = [0, 1, 2, 3].map((r) => (rule === KEEP_RUNS ? runLength(grid, r) : 0));
  const kept = new Set();
  for (let r = 0; r < ROWS; r++) for (let c = 0; c < runs[r]; c++) kept.add(cellOf(r, c));
  const gathered = grid.filter((c, i) => c !== GAP && !kept.has(i)).sort((a, b) => a - b);
  const deck = await drbg.shuffled(seed, drbg.gapsRedealLabel(playerId, k), gathered);
  const newGaps = new Set(runs.map((n, r) => cellOf(r, n)));
  let next = 0;
  return grid.map((c, i) => (kept.has(i) ? c : newGaps.has(i) ? GAP : deck[next++]));
}

/** Rows as 'JD 2D -- 6D ...' (the vectors' notation). */
export function formatGrid(grid) {
  const rows = [];
  for (let r = 0; r < ROWS; r++) {
    rows.push(grid.slice(r * COLS, (r + 1) * COLS).map((c) => (c === GAP ? "--" : cards.code(c))).join(" "));
  }
  return rows;
}

/** Options with defaults, or Error("bad gaps options: ...") as GapsRules.parse_options. */
export function parseOptions(data) {
  const opts = { redeals: 2, redeal: KEEP_RUNS, winnable: false };
  const given = isObject(data) ? data : {};
  try {
    if ("redeals" in given) {
      const v = given.redeals;
      if (typeof v !== "number" || !Number.isInteger(v)) throw new FieldError(["redeals"], "Input should be a valid integer");
      opts.redeals = strictInt(v, ["redeals"], 0, MAX_REDEALS);
    }
    if ("redeal" in given) {
      if (given.redeal !== KEEP_RUNS && given.redeal !== RESHUFFLE_ALL) {
        throw new FieldError(["redeal"], "Input should be 'keep_runs' or 'reshuffle_all'");
      }
      opts.redeal = given.redeal;
    }
    if ("winnable" in given) {
      if (typeof given.winnable !== "boolean") throw new FieldError(["winnable"], "Input should be a valid boolean");
      opts.winnable = given.winnable;
    }
    for (const key of Object.keys(given)) {
      if (!["redeals", "redeal", "winnable"].includes(key)) {
        throw new FieldError([key], "Extra inputs are not permitted");
      }
    }
  } catch (exc) {
    throw new Error(`bad gaps options: ${exc.message}`);
  }
  return opts;
}
void laxInt;

/** A typed action from JSON data, or MalformedAction (mirrors the pydantic models). */
export function parseAction(data) {
  try {
    const kind = discriminate(data, ["move", "redeal", "resign"]);
    if (kind !== "move") {
      noExtras(data, kind, ["kind"]);
      return { kind };
    }
    if (!("card" in data)) throw new FieldError(["move", "card"], "Field required");
    if (typeof data.card !== "string") throw new FieldError(["move", "card"], "Input should be a valid string");
    let card;
    try {
      card = cards.code(cards.parse(data.card));
    } catch (exc) {
      throw new FieldError(["move", "card"], `Value error, ${exc.message}`);
    }
    if (!("to" in data)) throw new FieldError(["move", "to"], "Field required");
    const to = data.to;
    if (!Array.isArray(to)) throw new FieldError(["move", "to"], "Input should be a valid tuple");
    const row = to.length > 0 ? strictInt(to[0], ["move", "to", 0], 0, ROWS - 1) : fieldRequired(0);
    const col = to.length > 1 ? strictInt(to[1], ["move", "to", 1], 0, COLS - 1) : fieldRequired(1);
    if (to.length > 2) {
      throw new FieldError(["move", "to"], `Tuple should have at most 2 items after validation, not ${to.length}`);
    }
    noExtras(data, "move", ["kind", "card", "to"]);
    return { kind: "move", card, to: [row, col] };
  } catch (exc) {
    if (exc instanceof FieldError) throw new MalformedAction("bad_action", `bad Gaps action: ${exc.message}`);
    throw exc;
  }
}

function fieldRequired(i) {
  throw new FieldError(["move", "to", i], "Field required");
}

/** A Gaps position. apply() returns the next one (a Promise for a redeal, which draws). */
export class GapsState {
  constructor({ seed, playerId, redeals, grid, redealsUsed = 0, status = null, rule = KEEP_RUNS }) {
    this.seed = seed;
    this.rule = rule;
    this.playerId = playerId;
    this.redeals = redeals;
    this.grid = grid;
    this.redealsUsed = redealsUsed;
    this.runs = [0, 1, 2, 3].map((r) => runLength(grid, r));
    this.cardsInPlace = this.runs.reduce((a, b) => a + b, 0);
    this.status = status || this.naturalStatus();
  }

  naturalStatus() {
    if (this.cardsInPlace === 4 * (COLS - 1)) return WON;
    if (this.redealsUsed >= this.redeals && isBlocked(this.grid)) return LOST;
    return PLAYING;
  }

  get progress() {
    return this.cardsInPlace;
  }
  get resets() {
    return this.redealsUsed;
  }
  get score() {
    const bonus = this.status === WON && !this.redealsUsed ? 10 : 0;
    return this.cardsInPlace - 5 * this.redealsUsed + bonus;
  }
  get blocked() {
    return isBlocked(this.grid);
  }

  /** Every legal [card, cell]: gaps in cell order, 2s in deck order. */
  legalMoves() {
    const moves = [];
    for (let g = 0; g < this.grid.length; g++) {
      if (this.grid[g] !== GAP) continue;
      if (g % COLS === 0) for (const two of TWOS) moves.push([two, g]);
      else {
        const need = neededCard(this.grid, g);
        if (need !== null) moves.push([need, g]);
      }
    }
    return moves;
  }

  with(grid, redealsUsed, status) {
    return new GapsState({
      seed: this.seed, playerId: this.playerId, redeals: this.redeals, grid, redealsUsed, status, rule: this.rule,
    });
  }

  apply(action) {
    if (this.status !== PLAYING) throw new IllegalAction("game_over", `the game is over (${this.status})`);
    if (action.kind === "move") return this.move(action);
    if (action.kind === "redeal") return this.redeal();
    return this.with(this.grid, this.redealsUsed, RESIGNED);
  }

  move(action) {
    const card = cards.parse(action.card);
    const [row, col] = action.to;
    const target = cellOf(row, col);
    const grid = this.grid;
    if (grid[target] !== GAP) {
      throw new IllegalAction("not_a_gap", `cell [${row}, ${col}] holds ${cards.code(grid[target])}, not a gap`);
    }
    if (col === 0) {
      if (card % 13 !== cards.TWO) throw new IllegalAction("wrong_card", `only a 2 may enter column 0, not ${action.card}`);
    } else if (card !== neededCard(grid, target)) {
      throw this.refusal(card, target);
    }
    const source = grid.indexOf(card);
    const next = grid.slice();
    next[target] = card;
    next[source] = GAP;
    return this.with(next, this.redealsUsed, null);
  }

  refusal(card, target) {
    if (cards.rank(card) === cards.ACE) return new IllegalAction("ace_out", `${cards.code(card)}: aces are out of play`);
    const need = neededCard(this.grid, target);
    if (need === null) {
      const left = this.grid[target - 1];
      const why = left === GAP ? "another gap" : cards.code(left);
      return new IllegalAction("dead_gap", `gap ${where(target)} is dead: left of it is ${why}`);
    }
    return new IllegalAction("wrong_card", `gap ${where(target)} takes only ${cards.code(need)}, not ${cards.code(card)}`);
  }

  async redeal() {
    if (this.redealsUsed >= this.redeals) {
      throw new IllegalAction("no_redeal_left", `no redeal left (${this.redeals} allowed)`);
    }
    if (!this.blocked) throw new IllegalAction("not_blocked", "a redeal is allowed only when no move is legal");
    const k = this.redealsUsed + 1;
    return this.with(await redealGrid(this.grid, this.seed, this.playerId, k, this.rule), k, null);
  }

  /** PROTOCOL.md's Gaps view. */
  view() {
    const rows = [];
    for (let r = 0; r < ROWS; r++) {
      rows.push(this.grid.slice(r * COLS, (r + 1) * COLS).map((c) => (c === GAP ? null : cards.code(c))));
    }
    const moves = this.legalMoves();
    return {
      grid: rows,
      redeals_left: this.redeals - this.redealsUsed,
      blocked: moves.length === 0,
      legal: this.status === PLAYING ? moves.map(([c, g]) => ({ card: cards.code(c), to: rowCol(g) })) : [],
    };
  }

  progressView() {
    return { cards_in_place: this.cardsInPlace, redeals_used: this.redealsUsed, score: this.score };
  }
}

export const GAPS = {
  name: "gaps",
  parseOptions,
  parseAction,
  async newGame(seed, options, { playerId, dealAttempt = 0 }) {
    const grid = await dealGrid(seed, dealAttempt);
    return new GapsState({ seed, playerId, redeals: options.redeals, grid, rule: options.redeal });
  },
};
