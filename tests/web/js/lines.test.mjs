// The analysis room's reading of a bundle (server/web/lines.js): the reference line (par,
// else the best line found), where two lines part, the first moves, the percentile.
import assert from "node:assert/strict";
import { test } from "node:test";

import { firstMoves, lineRecord, parOf, parting, reference, standing } from "../../../server/web/lines.js";

const mv = (card, r, c) => ({ kind: "move", card, to: [r, c] });
const T = { id: 1, game: "gaps", options: { redeals: 2 } };
const rec = (id, name, actions, par) => ({
  tournament: T, player: { id, name }, result: {},
  actions: actions.map((action, k) => ({ seq: k + 1, at_ms: 100 * k, action })),
  ...(par ? { par } : {}),
});
const row = (rank, player) => ({ rank, player });

test("parOf takes a well formed par only", () => {
  assert.equal(parOf(rec(1, "a", [])), null);
  assert.equal(parOf({ par: { progress: 3, resets: 0 } }), null);
  assert.equal(parOf({ par: { progress: "3", resets: 0, line: [] } }), null);
  const par = { progress: 3, resets: 1, line: [mv("2S", 0, 0)] };
  assert.deepEqual(parOf({ par }), par);
});

test("lineRecord plays a line in the record's place, seq 1, 2, ...", () => {
  const r = rec(7, "bob", [mv("2S", 0, 0)]);
  const out = lineRecord(r, [mv("2H", 1, 0), { kind: "redeal" }]);
  assert.equal(out.player.id, 7);
  assert.equal(out.tournament, T);
  assert.deepEqual(out.actions.map((a) => a.seq), [1, 2]);
  assert.deepEqual(out.actions[1].action, { kind: "redeal" });
});

test("reference: the viewer's par, else the top entry's par, else the top entry's line", () => {
  const a = rec(1, "Ann", [mv("2S", 0, 0), mv("3S", 0, 1)]);
  const b = rec(2, "bob", [mv("2H", 0, 0)]);
  const none = rec(3, "cy", []);
  const bundle = { records: [b, a, none], standings: [row(2, "bob"), row(1, "Ann"), row(null, "cy")] };
  let ref = reference(bundle, "bob");
  assert.equal(ref.kind, "best");
  assert.equal(ref.owner, "Ann");
  assert.deepEqual(ref.line, [mv("2S", 0, 0), mv("3S", 0, 1)]);
  const parB = { progress: 9, resets: 1, line: [mv("2D", 0, 0)] };
  b.par = parB;
  ref = reference(bundle, "BOB");
  assert.equal(ref.kind, "par");
  assert.equal(ref.record, b);
  assert.equal(reference(bundle, null).kind, "best"); // Ann (#1) has no par yet
  a.par = { progress: 12, resets: 0, line: [mv("2C", 0, 0)] };
  assert.equal(reference(bundle, null).record, a);
  assert.equal(reference({ records: [none], standings: [row(1, "cy")] }, null), null);
});

test("parting: the first differing step, a prefix, and other players' redeal streams", () => {
  const best = [mv("2S", 0, 0), { kind: "redeal" }, mv("2H", 1, 0)];
  assert.deepEqual(parting([mv("2S", 0, 0), mv("3S", 0, 1)], best, true), { step: 2, same: false });
  assert.deepEqual(parting([mv("2D", 0, 0)], best, true), { step: 1, same: false });
  assert.deepEqual(parting(best, best, true), { step: null, same: true });
  assert.deepEqual(parting(best.slice(0, 1), best, true), { step: 2, same: true });
  assert.deepEqual(parting([...best, mv("3H", 1, 1)], best, true), { step: 4, same: true });
  assert.deepEqual(parting([mv("2S", 0, 0), { kind: "redeal" }, mv("2C", 1, 0)], best, false),
    { step: null, same: false, redeal: 2 });
  // key order does not matter (the records' action objects are compared canonically)
  assert.deepEqual(parting([{ to: [0, 0], card: "2S", kind: "move" }], best.slice(0, 1), true), { step: null, same: true });
});

test("firstMoves: counted over the records that moved, most played first", () => {
  const recs = [rec(1, "a", [mv("2S", 0, 0)]), rec(2, "b", [mv("2H", 0, 0), mv("3H", 0, 1)]),
    rec(3, "c", [mv("2S", 0, 0)]), rec(4, "d", [])];
  const out = firstMoves(recs);
  assert.deepEqual(out.map((m) => [m.action.card, m.count]), [["2S", 2], ["2H", 1]]);
  assert.deepEqual(out.map((m) => m.share), [2 / 3, 1 / 3]);
  assert.deepEqual(firstMoves([]), []);
});

test("standing: the share of the ranked at or below the rank, ties and the disqualified", () => {
  const rows = [row(1, "a"), row(2, "b"), row(2, "c"), row(4, "d"), row(null, "x")];
  assert.deepEqual(standing(rows, "a"), { rank: 1, of: 4, below: 3, percentile: 100 });
  assert.deepEqual(standing(rows, "B"), { rank: 2, of: 4, below: 1, percentile: 75 });
  assert.deepEqual(standing(rows, "d"), { rank: 4, of: 4, below: 0, percentile: 25 });
  assert.equal(standing(rows, "x"), null);
  assert.equal(standing(rows, "nobody"), null);
  assert.equal(standing([row(1, "a")], "a").percentile, 100);
});
