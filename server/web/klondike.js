// Klondike exactly as RULES-KLONDIKE.md says, mirroring server/games/klondike.py: moves,
// draw and recycle, auto, score, and (for the replay viewer) the view. Piles are arrays
// with their top card last; a column is {down, up}; foundations count cards per suit.

import * as cards from "./cards.js";
import * as drbg from "./drbg.js";
import {
  FieldError, IllegalAction, MalformedAction, PLAYING, RESIGNED, WON,
  discriminate, isObject, noExtras, strictInt,
} from "./rules.js";

export const COLUMNS = 7;
export const PLACES = ["waste", "t0", "t1", "t2", "t3", "t4", "t5", "t6", "fC", "fD", "fH", "fS"];
const PLACE_NAMES = "waste, t0..t6, fC, fD, fH or fS";
const isColumn = (p) => p[0] === "t";
const isFoundation = (p) => p[0] === "f";

export function fitsColumn(card, up) {
  if (!up.length) return card % 13 === cards.KING;
  const top = up[up.length - 1];
  return top % 13 === (card % 13) + 1 && cards.isRed(top) !== cards.isRed(card);
}
export const fitsFoundation = (found, card) => found[Math.floor(card / 13)] === card % 13;

export function isSafe(found, card) {
  if (!fitsFoundation(found, card)) return false;
  const rank = (card % 13) + 1;
  if (rank <= 2) return true;
  const others = cards.isRed(card) ? [0, 3] : [1, 2];
  return others.every((s) => found[s] >= rank - 1);
}

/** Columns and the stock (top last) of deal attempt `attempt` (RNG.md). */
export async function deal(seed, attempt) {
  const deck = await drbg.shuffled(seed, drbg.klondikeDealLabel(attempt), cards.DECK);
  const piles = Array.from({ length: COLUMNS }, () => []);
  let next = 0;
  for (let row = 0; row < COLUMNS; row++) for (let col = row; col < COLUMNS; col++) piles[col].push(deck[next++]);
  const stockTopFirst = deck.slice(next);
  const cols = piles.map((p) => ({ down: p.slice(0, -1), up: p.slice(-1) }));
  return { cols, stock: stockTopFirst.reverse() };
}

export function parseOptions(data) {
  const given = isObject(data) ? data : {};
  const opts = { draw: 1, passes: null, guaranteed: false, hints: false };
  try {
    for (const key of ["draw", "passes", "guaranteed", "hints"]) {
      if (!(key in given)) continue;
      const v = given[key];
      if (key === "draw") {
        if (v !== 1 && v !== 3) throw new FieldError(["draw"], "Input should be 1 or 3");
        opts.draw = v;
      } else if (key === "passes") {
        opts.passes = v === null ? null : strictInt(v, ["passes"], 1, 99);
      } else {
        opts[key] = laxBool(v, key);
      }
    }
    for (const key of Object.keys(given)) {
      if (!["draw", "passes", "guaranteed", "hints"].includes(key)) {
        throw new FieldError([key], "not a klondike option; allowed: draw, passes, guaranteed, hints");
      }
    }
  } catch (exc) {
    throw new Error(`bad klondike options: ${exc.message}`);
  }
  return opts;
}

function laxBool(v, key) {
  if (v === true || v === false) return v;
  if (v === 0 || v === 1) return v === 1;
  if (typeof v === "string") {
    const t = v.toLowerCase();
    if (["0", "off", "f", "false", "n", "no"].includes(t)) return false;
    if (["1", "on", "t", "true", "y", "yes"].includes(t)) return true;
  }
  throw new FieldError([key], "Input should be a valid boolean, unable to interpret input");
}

function parsePlace(value, loc) {
  if (typeof value !== "string") throw new FieldError(loc, `a place is one of the texts ${PLACE_NAMES}`);
  if (!PLACES.includes(value)) throw new FieldError(loc, `unknown place ${cards.pyRepr(value)}: use ${PLACE_NAMES}`);
  return value;
}

export function parseAction(data) {
  try {
    const kind = discriminate(data, ["draw", "move", "auto", "resign"]);
    if (kind !== "move") {
      noExtras(data, kind, ["kind"]);
      return { kind };
    }
    if (!("from" in data)) throw new FieldError(["move", "from"], "Field required");
    const from = parsePlace(data.from, ["move", "from"]);
    if (!("to" in data)) throw new FieldError(["move", "to"], "Field required");
    const to = parsePlace(data.to, ["move", "to"]);
    const count = "count" in data ? strictInt(data.count, ["move", "count"], 1, 13) : 1;
    noExtras(data, "move", ["kind", "from", "to", "count"]);
    return { kind: "move", from, to, count };
  } catch (exc) {
    if (exc instanceof FieldError) throw new MalformedAction("bad_action", `bad Klondike action: ${exc.message}`);
    throw exc;
  }
}

const SUIT_OF_PLACE = { fC: 0, fD: 1, fH: 2, fS: 3 };
const AUTO_SOURCES = ["t0", "t1", "t2", "t3", "t4", "t5", "t6", "waste"];

export class KlondikeState {
  constructor(fields) {
    Object.assign(this, {
      waste: [], found: [0, 0, 0, 0], draw: 1, passes: null,
      recyclesUsed: 0, score: 0, moves: 0, status: PLAYING,
    }, fields);
    if (this.status === PLAYING && this.found.reduce((a, b) => a + b, 0) === 52) this.status = WON;
  }

  next(over) {
    const { cols, stock, waste, found, draw, passes, recyclesUsed, score, moves, status } = this;
    return new KlondikeState({ cols, stock, waste, found, draw, passes, recyclesUsed, score, moves, status, ...over });
  }

  get progress() {
    return this.found.reduce((a, b) => a + b, 0);
  }
  get resets() {
    return this.recyclesUsed;
  }
  get recyclesLeft() {
    return this.passes === null ? null : this.passes - 1 - this.recyclesUsed;
  }

  apply(action) {
    if (this.status !== PLAYING) throw new IllegalAction("game_over", `the game is over (${this.status})`);
    if (action.kind === "move") return this.move(action);
    if (action.kind === "draw") return this.drawCards();
    if (action.kind === "auto") return this.auto();
    return this.next({ status: RESIGNED });
  }

  drawCards() {
    if (this.stock.length) {
      const n = Math.min(this.draw, this.stock.length);
      const turned = this.stock.slice(-n).reverse();
      return this.next({ stock: this.stock.slice(0, -n), waste: this.waste.concat(turned), moves: this.moves + 1 });
    }
    if (!this.waste.length) throw new IllegalAction("nothing_to_draw", "the stock and the waste are both empty");
    if (this.recyclesLeft !== null && this.recyclesLeft <= 0) {
      throw new IllegalAction("no_recycle_left", `no recycle left (${this.passes} passes allowed)`);
    }
    const penalty = this.draw === 1 ? -100 : 0;
    return this.next({
      stock: this.waste.slice().reverse(), waste: [], recyclesUsed: this.recyclesUsed + 1,
      score: Math.max(0, this.score + penalty), moves: this.moves + 1,
    });
  }

  move({ from, to, count }) {
    if (from === to) throw new IllegalAction("same_place", "a move needs two different places");
    if (to === "waste") throw new IllegalAction("bad_target", "nothing can be moved onto the waste");
    if (count !== 1 && !(isColumn(from) && isColumn(to))) {
      throw new IllegalAction("bad_count", "only moves between columns take more than 1 card");
    }
    let moving;
    if (from === "waste") {
      if (!this.waste.length) throw new IllegalAction("empty_source", "the waste is empty");
      moving = [this.waste[this.waste.length - 1]];
    } else if (isFoundation(from)) {
      if (!isColumn(to)) throw new IllegalAction("bad_target", "a foundation card can only go to a column");
      const s = SUIT_OF_PLACE[from];
      if (!this.found[s]) throw new IllegalAction("empty_source", `foundation ${from} is empty`);
      moving = [s * 13 + this.found[s] - 1];
    } else {
      const up = this.cols[+from[1]].up;
      if (!up.length) throw new IllegalAction("empty_source", `column ${from} is empty`);
      if (count > up.length) {
        throw new IllegalAction("face_down", `column ${from} has only ${up.length} face-up cards; face-down cards never move`);
      }
      moving = up.slice(-count);
    }
    if (isFoundation(to)) {
      const s = SUIT_OF_PLACE[to];
      const card = moving[0];
      if (Math.floor(card / 13) !== s || !fitsFoundation(this.found, card)) {
        const need = this.found[s] === 13 ? "nothing more" : cards.code(s * 13 + this.found[s]);
        throw new IllegalAction("wrong_card", `${to} takes ${need}, not ${cards.code(card)}`);
      }
      return this.lift(from, 1, card, to, 10);
    }
    const onto = this.cols[+to[1]].up;
    if (!fitsColumn(moving[0], onto)) {
      const at = onto.length ? cards.code(onto[onto.length - 1]) : "an empty column (only a King)";
      throw new IllegalAction("wrong_card", `${cards.code(moving[0])} does not fit on ${at}`);
    }
    const points = from === "waste" ? 5 : isFoundation(from) ? -15 : 0;
    return this.lift(from, moving.length, moving[0], to, points, moving);
  }

  lift(from, count, card, to, points, moving = null) {
    const cols = this.cols.slice();
    let waste = this.waste;
    const found = this.found.slice();
    let score = this.score;
    if (from === "waste") waste = waste.slice(0, -1);
    else if (isFoundation(from)) found[Math.floor(card / 13)] -= 1;
    else {
      const i = +from[1];
      let { down, up } = cols[i];
      up = up.slice(0, -count);
      if (!up.length && down.length) {
        up = down.slice(-1);
        down = down.slice(0, -1);
        score += 5;
      }
      cols[i] = { down, up };
    }
    if (isFoundation(to)) found[Math.floor(card / 13)] += 1;
    else {
      const t = +to[1];
      cols[t] = { down: cols[t].down, up: cols[t].up.concat(moving || [card]) };
    }
    return this.next({ cols, waste, found, score: Math.max(0, score + points), moves: this.moves + 1 });
  }

  topOf(source) {
    if (source === "waste") return this.waste.length ? this.waste[this.waste.length - 1] : null;
    const up = this.cols[+source[1]].up;
    return up.length ? up[up.length - 1] : null;
  }

  auto() {
    let state = this;
    for (;;) {
      let moved = false;
      for (const source of AUTO_SOURCES) {
        const card = state.topOf(source);
        if (card !== null && isSafe(state.found, card)) {
          state = state.lift(source, 1, card, `f${cards.SUITS[Math.floor(card / 13)]}`, 10);
          moved = true;
        }
      }
      if (!moved) break;
    }
    if (state === this) throw new IllegalAction("no_safe_card", "no card can go up safely");
    return state;
  }

  /** What a player saw: face-down cards as counts (the replay shows them as backs). */
  view() {
    const foundations = {};
    cards.SUITS.split("").forEach((s, i) => {
      foundations[s] = this.found[i] ? cards.code(i * 13 + this.found[i] - 1) : null;
    });
    return {
      tableau: this.cols.map(({ down, up }) => ({ down: down.length, up: up.map(cards.code) })),
      stock: this.stock.length,
      waste: this.waste.slice(-3).map(cards.code),
      waste_count: this.waste.length,
      foundations,
      recycles_left: this.recyclesLeft,
      no_moves: false,
    };
  }

  progressView() {
    return { cards_home: this.progress, recycles_used: this.recyclesUsed, score: this.score, moves: this.moves };
  }
}

export const KLONDIKE = {
  name: "klondike",
  parseOptions,
  parseAction,
  async newGame(seed, options, { dealAttempt = 0 } = {}) {
    const { cols, stock } = await deal(seed, dealAttempt);
    return new KlondikeState({ cols, stock, draw: options.draw, passes: options.passes });
  },
};
