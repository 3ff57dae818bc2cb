// The beacon's state and words as the lobby and /t/ID show them (server/web/beaconline.js):
// awaited, used, void, and the round's due time for a built-in network only.
import assert from "node:assert/strict";
import { test } from "node:test";

import { QUICKNET, roundTime } from "../../../server/web/beacon.js";
import { beaconState, beaconText } from "../../../server/web/beaconline.js";
import { dateTime, setMessages } from "../../../server/web/i18n.js";
import { readPo } from "./catalogue.mjs";

setMessages("en", readPo("en"));

const planned = (network, round) => ({ network, chain_hash: "ab".repeat(32), round });

test("no beacon: no state, no words", () => {
  assert.equal(beaconState({ beacon: null, void: false }), null);
  assert.equal(beaconState(null), null);
  assert.equal(beaconText({ beacon: null }), "");
});

test("awaited until the round is verified, with its due time on a built-in network", () => {
  const t = { beacon: planned("quicknet", 1000), void: false };
  assert.equal(beaconState(t), "awaited");
  const due = dateTime(new Date(roundTime(QUICKNET, 1000) * 1000));
  assert.ok(beaconText(t).startsWith(`awaited (due ${due}): `), beaconText(t));
  const unknown = { beacon: planned("local-test", 7), void: false }; // its times are not known here
  assert.ok(beaconText(unknown).startsWith("awaited: the tournament opens once"), beaconText(unknown));
});

test("used once it carries a signature; void wins over everything", () => {
  const used = { beacon: { ...planned("default", 5), signature: "cd".repeat(96) }, void: false };
  assert.equal(beaconState(used), "used");
  assert.match(beaconText(used), /^used: the round is verified and the deal comes from it/);
  assert.equal(beaconState({ ...used, void: true }), "void");
  assert.equal(beaconState({ beacon: planned("quicknet", 9), void: true }), "void");
  assert.match(beaconText({ beacon: planned("quicknet", 9), void: true }), /^void: .* no entries/);
});
