// The browser's Gaps rules under both redeal rules (RULES-GAPS.md "Redeal variant (v1.3)")
// against the project's vectors (tests/data/gaps-redeal-rules-v1.json), deal attempts
// (`gaps/deal/a`), and the options' errors, word for word as the Python engine says them.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import * as drbg from "../../../server/web/drbg.js";
import { GAPS, GAP, dealGrid, formatGrid, parseOptions, redealGrid } from "../../../server/web/gaps.js";

const data = (name) => JSON.parse(readFileSync(new URL(`../../data/${name}`, import.meta.url), "utf8"));

test("gaps-redeal-rules-v1: every layout and end of every case, both rules", async () => {
  const { cases } = data("gaps-redeal-rules-v1.json");
  assert.deepEqual(new Set(cases.map((c) => c.options.redeal)), new Set(["keep_runs", "reshuffle_all"]));
  for (const c of cases) {
    const seed = drbg.hexToBytes(c.seed);
    let state = await GAPS.newGame(seed, parseOptions(c.options), { playerId: c.player_id });
    const layouts = [formatGrid(state.grid)];
    for (const a of c.actions) {
      state = await state.apply(GAPS.parseAction(a));
      if (a.kind === "redeal") layouts.push(formatGrid(state.grid));
    }
    assert.deepEqual(layouts, c.layouts_after_each_deal);
    assert.deepEqual(formatGrid(state.grid), c.final_layout);
    assert.equal(state.status, c.status);
    assert.equal(state.progress, c.cards_in_place);
    assert.equal(state.resets, c.redeals_used);
  }
});

test("reshuffle_all keeps nothing: every row's gap in column 0", async () => {
  const { cases } = data("gaps-redeal-rules-v1.json");
  const c = cases.find((x) => x.options.redeal === "reshuffle_all");
  const seed = drbg.hexToBytes(c.seed);
  const solved = Array.from({ length: 52 }, (_, i) => (i % 13 === 12 ? GAP : Math.floor(i / 13) * 13 + (i % 13) + 1));
  const grid = await redealGrid(solved, seed, 9, 1, "reshuffle_all");
  for (let r = 0; r < 4; r++) assert.equal(grid[r * 13], GAP);
  assert.equal(grid.filter((x) => x === GAP).length, 4);
  assert.deepEqual(await redealGrid(solved, seed, 9, 1, "keep_runs"), solved);
});

test("deal attempts: 0 is gaps/deal, a >= 1 is gaps/deal/a", async () => {
  const seed = drbg.hexToBytes("5e".repeat(32));
  assert.deepEqual(await dealGrid(seed, 0), await dealGrid(seed));
  const deck = await drbg.shuffled(seed, "gaps/deal/3", [...Array(52).keys()]);
  assert.deepEqual(await dealGrid(seed, 3), deck.map((x) => (x % 13 === 0 ? GAP : x)));
  const state = await GAPS.newGame(seed, parseOptions({}), { playerId: 1, dealAttempt: 3 });
  assert.deepEqual(state.grid, deck.map((x) => (x % 13 === 0 ? GAP : x)));
});

test("options: defaults, both rules, and the errors the Python engine gives", () => {
  assert.deepEqual(parseOptions({}), { variant: "gaps", redeals: 2, redeal: "keep_runs", winnable: false });
  assert.deepEqual(parseOptions({ redeal: "reshuffle_all", winnable: true }), {
    variant: "gaps", redeals: 2, redeal: "reshuffle_all", winnable: true,
  });
  const bad = [
    [{ redeal: "shuffle" }, "redeal: Input should be 'keep_runs' or 'reshuffle_all'"],
    [{ redeal: 1 }, "redeal: Input should be 'keep_runs' or 'reshuffle_all'"],
    [{ winnable: "yes" }, "winnable: Input should be a valid boolean"],
    [{ winnable: 1 }, "winnable: Input should be a valid boolean"],
    [{ redeal_rule: "keep_runs" }, "redeal_rule: not a gaps option; allowed: variant, redeals, redeal, winnable"],
  ];
  for (const [options, words] of bad) assert.throws(() => parseOptions(options), { message: `bad gaps options: ${words}` });
});
