// The JavaScript half of the contract against the repository's vectors (tests/data): the
// generator, the Gaps engine on a whole game, the log chains, and the 22 verify cases.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import * as cards from "../../../server/web/cards.js";
import * as drbg from "../../../server/web/drbg.js";
import { GAPS, formatGrid, redealGrid } from "../../../server/web/gaps.js";
import { deal } from "../../../server/web/klondike.js";
import { canonical, genesis, logHash, logRoot, step } from "../../../server/web/receipts.js";
import { bytesToHex } from "../../../server/web/drbg.js";
import { verifyDocument } from "../../../server/web/verify.js";

const data = (name) => JSON.parse(readFileSync(new URL(`../../data/${name}`, import.meta.url), "utf8"));

test("drbg-v1: commitment, u32, uniform, the Gaps deal and layouts, redeals, Klondike", async () => {
  const v = data("drbg-v1.json");
  assert.equal(v.spec, "samedeal-drbg-v1");
  assert.equal(v.cases.length, 3);
  for (const c of v.cases) {
    const seed = drbg.hexToBytes(c.seed);
    assert.equal(await drbg.commitment(seed), c.commitment);
    let s = new drbg.Stream(seed, "test");
    const words = [];
    for (let i = 0; i < 8; i++) words.push(await s.u32());
    assert.deepEqual(words, c.u32_label_test_first8);
    s = new drbg.Stream(seed, "test");
    const u = [];
    for (let i = 0; i < 8; i++) u.push(await s.uniform(52));
    assert.deepEqual(u, c.uniform52_label_test_first8);
    const deck = await drbg.shuffled(seed, "gaps/deal", cards.DECK);
    assert.deepEqual(deck.map(cards.code), c.shuffled_deck_label_gaps_deal);
    const game = await GAPS.newGame(seed, { redeals: 2 }, { playerId: 1 });
    assert.deepEqual(formatGrid(game.grid), c.gaps_initial_layout);
    for (const pid of [1, 42]) {
      const key = `gaps_layout_after_redeal_1_of_initial_player_${pid}`;
      if (c[key]) assert.deepEqual(formatGrid(await redealGrid(game.grid, seed, pid, 1)), c[key]);
    }
    for (const attempt of [0, 1]) {
      const { cols, stock } = await deal(seed, attempt);
      const piles = cols.map(({ down, up }) => down.concat(up).map(cards.code));
      assert.deepEqual(piles, c[`klondike_attempt${attempt}_tableau_bottom_to_top`]);
      assert.deepEqual(stock.slice().reverse().map(cards.code), c[`klondike_attempt${attempt}_stock_top_first`]);
    }
  }
});

test("the uniform draw rejects biased values and crosses block boundaries", async () => {
  const seed = new Uint8Array(32);
  const s = new drbg.Stream(seed, "test");
  const words = [];
  for (let i = 0; i < 20; i++) words.push(await s.u32());
  const key = await crypto.subtle.importKey("raw", seed, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const raw = [];
  for (let i = 0; i < 3; i++) {
    const msg = new Uint8Array([...new TextEncoder().encode("test"), 0, 0, 0, 0, 0, 0, 0, 0, i]);
    raw.push(...new Uint8Array(await crypto.subtle.sign("HMAC", key, msg)));
  }
  const dv = new DataView(new Uint8Array(raw).buffer);
  assert.deepEqual(words, Array.from({ length: 20 }, (_, k) => dv.getUint32(4 * k)));
  const fixed = Object.create(drbg.Stream.prototype);
  const values = [4294967295, 7];
  fixed.u32 = async () => values.shift();
  assert.equal(await fixed.uniform(3), 1);
});

test("gaps-game-1: the whole game replays to the vector's layouts and end", async () => {
  const v = data("gaps-game-1.json");
  const seed = drbg.hexToBytes(v.seed);
  let state = await GAPS.newGame(seed, { redeals: 2 }, { playerId: v.player_id });
  const layouts = [formatGrid(state.grid)];
  for (const a of v.actions) {
    state = await state.apply(GAPS.parseAction(a));
    if (a.kind === "redeal") layouts.push(formatGrid(state.grid));
  }
  assert.deepEqual(layouts, v.layouts_after_each_deal);
  assert.deepEqual(formatGrid(state.grid), v.final_layout);
  assert.equal(state.status, v.status);
  assert.equal(state.progress, v.cards_in_place);
  assert.equal(state.resets, v.redeals_used);
});

test("log-chain-v1: every head of both chains, and the root", async () => {
  const v = data("log-chain-v1.json");
  for (const chain of v.chains) {
    let head = await genesis(chain.commitment, chain.player_id);
    assert.equal(bytesToHex(head), chain.heads[0]);
    for (let k = 0; k < chain.actions.length; k++) {
      const a = chain.actions[k];
      head = await step(head, a.seq, a.at_ms, canonical(a.action));
      assert.equal(bytesToHex(head), chain.heads[k + 1], `head ${k + 1}`);
    }
    const triples = chain.actions.map((a) => [a.seq, a.at_ms, a.action]);
    assert.equal(await logHash(chain.commitment, chain.player_id, triples), chain.heads.at(-1));
  }
  const pairs = Object.entries(v.root.heads_by_player).map(([p, h]) => [Number(p), h]);
  assert.equal(await logRoot(pairs), v.root.root);
  assert.equal(await logRoot(pairs.slice().reverse()), v.root.root);
});

test("canonical text: sorted keys, no spaces, non-ASCII escaped as Python does", () => {
  assert.equal(canonical({ to: [0, 1], kind: "move", card: "2H" }), '{"card":"2H","kind":"move","to":[0,1]}');
  assert.equal(canonical({ note: "caf\u00e9" }), '{"note":"caf\\u00e9"}');
  assert.equal(canonical({ b: "\u007f", a: "\n\u0001" }), '{"a":"\\n\\u0001","b":"\u007f"}');
  assert.equal(canonical({ b: "\u007f", a: "\u00e9" }), '{"a":"\\u00e9","b":"\\u007f"}');
  assert.equal(canonical({ x: "\ud83d\ude00" }), '{"x":"\\ud83d\\ude00"}');
});

const REASONS = {
  commitment: "not the commitment",
  result: ": result ",
  seq: "expected seq",
  illegal: "illegal action",
  "redeal stream": "illegal action",
  standings: "standings row",
  tournament: "its tournament differs from the bundle's",
};

test("verify-cases-v1: all 22 cases give the stated verdict", async () => {
  const { cases } = data("verify-cases-v1.json");
  assert.equal(cases.length, 22);
  for (const c of cases) {
    const report = await verifyDocument(c.document);
    if (c.expect === "ok") {
      assert.ok(report.ok, `${c.name}: ${report.error}`);
      assert.ok(report.notes.length && report.notes.every((n) => n.includes("carries no receipts") || n.includes("carry no")));
    } else {
      assert.ok(!report.ok, `${c.name} verified`);
      assert.ok(report.error.includes(REASONS[c.why]), `${c.name}: ${c.why}: ${report.error}`);
    }
  }
});

test("the bundle case with log-chain-v1's heads and root written in verifies without notes", async () => {
  const chains = data("log-chain-v1.json");
  const heads = Object.fromEntries(Object.entries(chains.root.heads_by_player).map(([p, h]) => [Number(p), h]));
  const doc = structuredClone(data("verify-cases-v1.json").cases.find((c) => c.name.includes("bundle of 4")).document);
  for (const rec of doc.records) rec.log_hash = heads[rec.player.id];
  doc.log_root = chains.root.root;
  const report = await verifyDocument(doc);
  assert.ok(report.ok, report.error);
  assert.deepEqual(report.notes, []);
  doc.log_root = heads[83];
  assert.match((await verifyDocument(doc)).error, /the log root differs/);
});
