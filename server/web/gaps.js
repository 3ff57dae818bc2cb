// Gaps (Montana), variant "Semicolon": RULES-GAPS.md, mirroring server/games/gaps.py.
// The grid is 52 cells row-major (cell = row * 13 + col): a card 0..51 or GAP.
// The family variants (v1.4: montana, addiction, free_parking) are one engine with three
// hooks, declared per variant in VARIANTS: how a shuffled deck is laid out, which cards a
// gap outside column 0 accepts, and where a redeal's gaps fall.

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
const ACES = cards.DECK.filter((c) => cards.rank(c) === cards.ACE);

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

/** The one card that fits a gap outside column 0 by its left neighbour (every variant's
 * rule), or null when the left neighbour is a King or a gap. */
export function neededCard(grid, gap) {
  const left = grid[gap - 1];
  if (left === GAP || left % 13 === cards.KING) return null;
  return left + 1;
}

/** free_parking's second way in: the card one rank below the right neighbour (same row),
 * or null for column 12 or a right neighbour that is a gap or a 2. */
export function belowRight(grid, gap) {
  if (gap % COLS === COLS - 1) return null;
  const right = grid[gap + 1];
  if (right === GAP || right % 13 === cards.TWO) return null;
  return right - 1;
}

/** The cards a gap outside column 0 accepts under `variant` (empty: the gap is dead). */
export function fitsGap(grid, gap, variant = VARIANTS.gaps) {
  const left = neededCard(grid, gap);
  const out = left === null ? [] : [left];
  if (variant.rightRule) {
    const right = belowRight(grid, gap);
    if (right !== null && right !== left) out.push(right);
  }
  return out;
}

export function isBlocked(grid, variant = VARIANTS.gaps) {
  for (let g = 0; g < grid.length; g++) {
    if (grid[g] !== GAP) continue;
    if (g % COLS === 0 || fitsGap(grid, g, variant).length) return false;
  }
  return true;
}

export const KEEP_RUNS = "keep_runs";
export const RESHUFFLE_ALL = "reshuffle_all";

/** The layout of deal attempt `attempt` (0: `gaps/deal`, a >= 1: `gaps/deal/a`). */
export async function dealGrid(seed, attempt = 0, variant = VARIANTS.gaps) {
  return (await laidOut(seed, attempt, variant)).map(noAce);
}

/** The shuffled deck laid out by the variant, the aces still in it. */
async function laidOut(seed, attempt, variant) {
  const label = attempt ? `${drbg.gapsDealLabel()}/${attempt}` : drbg.gapsDealLabel();
  return variant.layout(await drbg.shuffled(seed, label, cards.DECK));
}

const noAce = (c) => (c !== GAP && cards.rank(c) === cards.ACE ? GAP : c);

/** gaps, addiction, free_parking: the shuffled deck row-major. */
function rowMajor(deck) {
  return deck.slice();
}

/** montana: 2C 2D 2H 2S down column 0, the other 48 in shuffled order in columns 1..12. */
function twosPlaced(deck) {
  const rest = deck.filter((c) => cards.rank(c) !== cards.TWO);
  const grid = [];
  for (let r = 0; r < ROWS; r++) grid.push(TWOS[r], ...rest.slice(r * (COLS - 1), (r + 1) * (COLS - 1)));
  return grid;
}

/** What a redeal keeps: each row's run under keep_runs (nothing under reshuffle_all), as
 * run lengths and as the set of their cells. */
function keptRuns(grid, rule) {
  const runs = [0, 1, 2, 3].map((r) => (rule === KEEP_RUNS ? runLength(grid, r) : 0));
  const kept = new Set();
  for (let r = 0; r < ROWS; r++) for (let c = 0; c < runs[r]; c++) kept.add(cellOf(r, c));
  return { runs, kept };
}

/** gaps, montana, free_parking: shuffle the rest, one gap right after each kept run. */
async function gapsAfterRuns(grid, seed, playerId, k, rule) {
  const { runs, kept } = keptRuns(grid, rule);
  const gathered = grid.filter((c, i) => c !== GAP && !kept.has(i)).sort((a, b) => a - b);
  const deck = await drbg.shuffled(seed, drbg.gapsRedealLabel(playerId, k), gathered);
  const newGaps = new Set(runs.map((n, r) => cellOf(r, n)));
  let next = 0;
  return grid.map((c, i) => (kept.has(i) ? c : newGaps.has(i) ? GAP : deck[next++]));
}

/** addiction: the rest and the 4 aces shuffled into every cell not kept, row-major; the
 * aces are then removed where they fell (a grid holding the aces is returned: the caller
 * removes them, so it can tell where each fell). */
async function acesAsGaps(grid, seed, playerId, k, rule) {
  const { kept } = keptRuns(grid, rule);
  const gathered = grid.filter((c, i) => c !== GAP && !kept.has(i)).concat(ACES).sort((a, b) => a - b);
  const deck = await drbg.shuffled(seed, drbg.gapsRedealLabel(playerId, k), gathered);
  let next = 0;
  return grid.map((c, i) => (kept.has(i) ? c : deck[next++]));
}

/** The family (RULES-GAPS.md "Family variants (v1.4)"): each variant's name in words, its
 * default redeals, and its hooks. */
export const VARIANTS = {
  gaps: {
    name: "gaps", title: "Gaps", redeals: 2, layout: rowMajor, rightRule: false, redeal: gapsAfterRuns,
    words: "plain Gaps",
  },
  montana: {
    name: "montana", title: "Montana", redeals: 2, layout: twosPlaced, rightRule: false, redeal: gapsAfterRuns, fixedTwos: true,
    words: "Montana: the 2s pre-placed in the first column",
  },
  addiction: {
    name: "addiction", title: "Addiction", redeals: 3, layout: rowMajor, rightRule: false, redeal: acesAsGaps, acesOnRedeal: true,
    words: "Addiction: a redeal's gaps are where the aces fall",
  },
  free_parking: {
    name: "free_parking", title: "Free Parking", redeals: 2, layout: rowMajor, rightRule: true, redeal: gapsAfterRuns,
    words: "Free Parking: a gap also takes the card below its right neighbour",
  },
};
export const VARIANT_NAMES = Object.keys(VARIANTS);

/** The variant of parsed or served options (absent: gaps). */
export function variantOf(options) {
  const name = options && typeof options.variant === "string" ? options.variant : "gaps";
  return Object.hasOwn(VARIANTS, name) ? VARIANTS[name] : VARIANTS.gaps;
}

/** The cells of the aces in a grid that holds them: Map cell -> ace. */
export function aceCells(grid) {
  const out = new Map();
  grid.forEach((c, i) => c !== GAP && cards.rank(c) === cards.ACE && out.set(i, c));
  return out;
}

/** Redeal k of a player under `variant` (default gaps): the new grid, aces removed. */
export async function redealGrid(grid, seed, playerId, k, rule = KEEP_RUNS, variant = VARIANTS.gaps) {
  return (await variant.redeal(grid, seed, playerId, k, rule)).map(noAce);
}

/** Rows as 'JD 2D -- 6D ...' (the vectors' notation). */
export function formatGrid(grid) {
  const rows = [];
  for (let r = 0; r < ROWS; r++) {
    rows.push(grid.slice(r * COLS, (r + 1) * COLS).map((c) => (c === GAP ? "--" : cards.code(c))).join(" "));
  }
  return rows;
}

/** The inverse of formatGrid: 4 rows of 13 codes or '--' (a layout from the vectors). */
export function parseGrid(rows) {
  const cells = rows.flatMap((row) => row.split(" "));
  if (rows.length !== ROWS || cells.length !== ROWS * COLS) throw new Error(`a grid has ${ROWS} rows of ${COLS} cells`);
  return cells.map((tok) => (tok === "--" ? GAP : cards.parse(tok)));
}

const OPTION_NAMES = ["variant", "redeals", "redeal", "winnable"]; // GapsOptions' fields, in order
const PY_TYPES = { boolean: "bool", string: "str", undefined: "NoneType" };

/** Why `value` is not a variant's name, or null (gaps_options._variant_problem). */
function variantProblem(value) {
  const allowed = VARIANT_NAMES.join(", ");
  if (typeof value !== "string") {
    const shown = value === null ? "null" : Array.isArray(value) ? "list" : typeof value === "number"
      ? (Number.isInteger(value) ? "int" : "float") : typeof value === "object" ? "dict" : PY_TYPES[typeof value];
    return `must be one of the strings ${allowed}, not ${shown}`;
  }
  if (Object.hasOwn(VARIANTS, value)) return null;
  const low = value.toLowerCase();
  const hint = low === "spaces" ? " (Spaces is redeal: reshuffle_all)" : "";
  const exact = Object.hasOwn(VARIANTS, low) ? " (names are exact lowercase)" : "";
  return `unknown variant ${cards.pyRepr(value)}${hint}${exact}; allowed: ${allowed}`;
}

/** Options with defaults, or Error("bad gaps options: ...") as GapsRules.parse_options.
 * `redeals` defaults to the variant's (addiction: 3). */
export function parseOptions(data) {
  const opts = { variant: "gaps", redeals: 2, redeal: KEEP_RUNS, winnable: false };
  const given = isObject(data) ? data : {};
  try {
    if ("variant" in given) {
      const problem = variantProblem(given.variant);
      if (problem) throw new FieldError([], `variant: ${problem}`);
      opts.variant = given.variant;
    }
    opts.redeals = VARIANTS[opts.variant].redeals;
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
      if (!OPTION_NAMES.includes(key)) {
        throw new FieldError([key], `not a gaps option; allowed: ${OPTION_NAMES.join(", ")}`);
      }
    }
    if (opts.redeal === RESHUFFLE_ALL && VARIANTS[opts.variant].fixedTwos) {
      throw new FieldError([], `redeal: variant ${opts.variant} allows only keep_runs (reshuffle_all would gather its pre-placed 2s)`);
    }
    if (opts.winnable && opts.variant !== "gaps") {
      throw new FieldError([], `winnable: true needs variant gaps, not ${opts.variant}`);
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
  constructor({ seed, playerId, redeals, grid, redealsUsed = 0, status = null, rule = KEEP_RUNS, variant = VARIANTS.gaps, aces = null }) {
    this.seed = seed;
    this.rule = rule;
    this.variant = variant;
    this.aces = aces; // Map cell -> ace: where the aces lay in this deal's layout (the gaps they made)
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
    if (this.redealsUsed >= this.redeals && isBlocked(this.grid, this.variant)) return LOST;
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
    return isBlocked(this.grid, this.variant);
  }

  /** Every legal [card, cell]: gaps in cell order, 2s in deck order; at a free_parking
   * gap the card after its left neighbour, then the card before its right one. */
  legalMoves() {
    const moves = [];
    for (let g = 0; g < this.grid.length; g++) {
      if (this.grid[g] !== GAP) continue;
      if (g % COLS === 0) for (const two of TWOS) moves.push([two, g]);
      else for (const card of fitsGap(this.grid, g, this.variant)) moves.push([card, g]);
    }
    return moves;
  }

  /** The same deal for another player (a Gaps redeal is drawn from the player's stream). */
  forPlayer(playerId) {
    return new GapsState({
      seed: this.seed, playerId, redeals: this.redeals, grid: this.grid, rule: this.rule, variant: this.variant, aces: this.aces,
    });
  }

  with(grid, redealsUsed, status, aces = this.aces) {
    return new GapsState({
      seed: this.seed, playerId: this.playerId, redeals: this.redeals, grid, redealsUsed, status, rule: this.rule,
      variant: this.variant, aces,
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
    } else if (!fitsGap(grid, target, this.variant).includes(card)) {
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
    if (this.variant.fixedTwos && cards.rank(card) === cards.TWO) {
      return new IllegalAction("fixed_two", `${cards.code(card)}: in montana the 2s stay where they are dealt`);
    }
    const fits = fitsGap(this.grid, target, this.variant);
    if (!fits.length) return new IllegalAction("dead_gap", `gap ${where(target)} is dead: ${this.deadWhy(target)}`);
    return new IllegalAction("wrong_card", `gap ${where(target)} takes only ${fits.map(cards.code).join(" or ")}, not ${cards.code(card)}`);
  }

  /** Why a gap outside column 0 takes nothing: its left neighbour (and free_parking's right). */
  deadWhy(target) {
    const name = (c) => (c === GAP ? "another gap" : cards.code(c));
    const why = `left of it is ${name(this.grid[target - 1])}`;
    if (!this.variant.rightRule) return why;
    if (target % COLS === COLS - 1) return `${why} and it has no right neighbour`;
    return `${why} and right of it is ${name(this.grid[target + 1])}`;
  }

  async redeal() {
    if (this.redealsUsed >= this.redeals) {
      throw new IllegalAction("no_redeal_left", `no redeal left (${this.redeals} allowed)`);
    }
    if (!this.blocked) throw new IllegalAction("not_blocked", "a redeal is allowed only when no move is legal");
    const k = this.redealsUsed + 1;
    const dealt = await this.variant.redeal(this.grid, this.seed, this.playerId, k, this.rule);
    const aces = this.variant.acesOnRedeal ? aceCells(dealt) : null;
    return this.with(dealt.map(noAce), k, null, aces);
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
    const variant = variantOf(options);
    const laid = await laidOut(seed, dealAttempt, variant);
    return new GapsState({
      seed, playerId, redeals: options.redeals, grid: laid.map(noAce), rule: options.redeal, variant, aces: aceCells(laid),
    });
  },
};
