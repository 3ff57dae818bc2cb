// The browser's Gaps rules for the family variants (RULES-GAPS.md "Family variants (v1.4)")
// against every part of the contract's vectors (tests/data/gaps-variants-v1.json): each
// case's deal, legal moves, moves and their results, the redeals of players 1 and 42, whole
// games, the blocked and free_parking positions, the winning games, and the option sets
// accepted (with their effective options) and refused.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import * as drbg from "../../../server/web/drbg.js";
import {
  GAPS, GapsState, VARIANTS, formatGrid, parseGrid, parseOptions, redealGrid, variantOf,
} from "../../../server/web/gaps.js";
import { KLONDIKE } from "../../../server/web/klondike.js";

const v = JSON.parse(readFileSync(new URL("../../data/gaps-variants-v1.json", import.meta.url), "utf8"));
const key = (m) => `${m.card}@${m.to.join(",")}`;
const asSet = (moves) => new Set(moves.map(key));
const legalOf = (state) => asSet(state.view().legal);

/** A game replayed from its deal: every layout after each deal, the end and the figures. */
async function replay(game) {
  const seed = drbg.hexToBytes(game.seed);
  let state = await GAPS.newGame(seed, parseOptions(game.options), { playerId: game.player_id });
  const layouts = [formatGrid(state.grid)];
  for (const a of game.actions) {
    state = await state.apply(GAPS.parseAction(a));
    if (a.kind === "redeal") layouts.push(formatGrid(state.grid));
  }
  assert.deepEqual(layouts, game.layouts_after_each_deal);
  assert.deepEqual(formatGrid(state.grid), game.final_layout);
  assert.equal(state.status, game.status);
  assert.equal(state.progress, game.cards_in_place);
  assert.equal(state.resets, game.redeals_used);
  assert.equal(state.score, game.score);
  return state;
}

test("every variant named, with its default redeals", () => {
  assert.deepEqual(Object.keys(v.variants).sort(), Object.keys(VARIANTS).sort());
  for (const [name, about] of Object.entries(v.variants)) {
    assert.equal(VARIANTS[name].redeals, about.default_redeals);
    assert.equal(parseOptions({ variant: name }).redeals, about.default_redeals);
  }
});

test("cases: the deal, its legal moves, blocked flag and cards in place", async () => {
  assert.equal(v.cases.length, 21);
  assert.deepEqual(new Set(v.cases.map((c) => c.variant)), new Set(["montana", "addiction", "free_parking"]));
  for (const c of v.cases) {
    const state = await GAPS.newGame(drbg.hexToBytes(c.seed), parseOptions(c.options), { playerId: 1 });
    assert.equal(state.variant.name, c.variant);
    assert.deepEqual(formatGrid(state.grid), c.initial_layout, c.seed);
    assert.deepEqual(legalOf(state), asSet(c.initial_legal), `${c.variant} ${c.seed}`);
    assert.equal(state.blocked, c.initial_blocked);
    assert.equal(state.progress, c.initial_cards_in_place);
  }
});

test("cases: each move's layout, legal moves, blocked flag, progress and status", async () => {
  let moves = 0;
  for (const c of v.cases) {
    let state = await GAPS.newGame(drbg.hexToBytes(c.seed), parseOptions(c.options), { playerId: 1 });
    for (const m of c.moves) {
      state = await state.apply(GAPS.parseAction(m.action));
      assert.deepEqual(formatGrid(state.grid), m.layout_after);
      assert.deepEqual(legalOf(state), asSet(m.legal_after), `${c.variant} ${c.seed} ${key(m.action)}`);
      assert.equal(state.blocked, m.blocked_after);
      assert.deepEqual(state.progressView(), m.progress_after);
      assert.equal(state.status, m.status_after);
      moves++;
    }
  }
  assert.ok(moves >= 100);
});

test("cases: redeal k of players 1 and 42 applied to the deal, under each variant's rule", async () => {
  for (const c of v.cases) {
    const seed = drbg.hexToBytes(c.seed);
    const options = parseOptions(c.options);
    const dealt = await GAPS.newGame(seed, options, { playerId: 1 });
    assert.ok(c.redeals_of_initial.some((r) => r.player_id === 42));
    for (const r of c.redeals_of_initial) {
      const grid = await redealGrid(dealt.grid, seed, r.player_id, r.k, options.redeal, variantOf(options));
      assert.deepEqual(formatGrid(grid), r.layout, `${c.variant} ${c.seed} player ${r.player_id} k ${r.k}`);
      // the same through a state: as if the deal were blocked, the state redeals it
      const blocked = new GapsState({
        seed, playerId: r.player_id, redeals: 3, redealsUsed: r.k - 1, grid: dealt.grid, rule: options.redeal, variant: dealt.variant,
      });
      Object.defineProperty(blocked, "blocked", { value: true });
      const after = await blocked.redeal();
      assert.deepEqual(formatGrid(after.grid), r.layout);
    }
  }
});

test("cases: every whole game replays to its layouts, end and figures", async () => {
  const ends = new Set();
  for (const c of v.cases) for (const g of c.games) ends.add((await replay(g)).status);
  assert.deepEqual(ends, new Set(["lost", "resigned"]));
});

test("won_games: one winning game per new variant", async () => {
  assert.deepEqual(new Set(v.won_games.map((g) => g.options.variant)), new Set(["montana", "addiction", "free_parking"]));
  for (const g of v.won_games) assert.equal((await replay(g)).status, "won");
});

test("positions: legal moves, blocked flag and cards in place of every layout", () => {
  assert.equal(v.positions.length, 31);
  for (const p of v.positions) {
    const options = parseOptions({ variant: p.variant });
    const state = new GapsState({
      seed: new Uint8Array(32), playerId: 1, redeals: options.redeals, grid: parseGrid(p.layout), rule: options.redeal,
      variant: variantOf(options),
    });
    assert.deepEqual(legalOf(state), asSet(p.legal), p.why);
    assert.equal(state.blocked, p.blocked, p.why);
    assert.equal(state.progress, p.cards_in_place, p.why);
  }
});

test("options: each accepted set means its effective options; each refused set is refused", () => {
  for (const a of v.options.accepted) {
    assert.equal(a.game, "gaps");
    assert.deepEqual(parseOptions(a.options), a.effective, JSON.stringify(a.options));
  }
  for (const r of v.options.refused) {
    const rules = r.game === "gaps" ? GAPS : KLONDIKE;
    assert.throws(() => rules.parseOptions(r.options), /^Error: bad (gaps|klondike) options: /, r.why);
  }
});

test("the rules page's worked examples are the vectors'", async () => {
  const { EXAMPLES } = await import("../../../server/web/rulesexamples.js");
  for (const name of ["montana", "free_parking"]) {
    const ex = EXAMPLES[name];
    const c = v.cases.find((x) => x.variant === name && x.seed === ex.seed && x.options.redeal === "keep_runs");
    const state = await GAPS.newGame(drbg.hexToBytes(ex.seed), parseOptions(ex.options), { playerId: 1 });
    assert.deepEqual(formatGrid(state.grid), c.initial_layout);
    assert.deepEqual(ex.move, c.moves[0].action);
    assert.deepEqual(formatGrid((await state.apply(ex.move)).grid), c.moves[0].layout_after);
  }
  const fp = await GAPS.newGame(drbg.hexToBytes(EXAMPLES.free_parking.seed), parseOptions({ variant: "free_parking" }), { playerId: 1 });
  assert.deepEqual(fp.view().legal.filter((m) => m.to.join() === "0,6").map((m) => m.card), ["9H", "JD"]);
  const ad = EXAMPLES.addiction;
  const blocked = v.positions.find((p) => p.variant === "addiction" && JSON.stringify(p.layout) === JSON.stringify(ad.blocked));
  assert.ok(blocked && blocked.blocked);
  const game = v.cases.flatMap((c) => c.games).find((g) => g.seed === ad.seed && g.options.variant === "addiction"
    && g.options.redeal === "keep_runs" && g.player_id === ad.playerId);
  assert.deepEqual(game.layouts_after_each_deal[0], v.cases.find((c) => c.seed === ad.seed && c.variant === "addiction").initial_layout);
  const options = parseOptions(ad.options);
  const state = new GapsState({
    seed: drbg.hexToBytes(ad.seed), playerId: ad.playerId, redeals: options.redeals, grid: parseGrid(ad.blocked), variant: variantOf(options),
  });
  const after = await state.apply({ kind: "redeal" });
  assert.deepEqual(formatGrid(after.grid), game.layouts_after_each_deal[1]);
  assert.deepEqual([...after.aces.keys()].sort((a, b) => a - b), after.grid.flatMap((c, i) => (c === -1 ? [i] : [])));
});
