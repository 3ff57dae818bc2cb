// The browser's beacon verifier (server/web/beacon.js on the vendored @noble/curves) against
// the contract's drand vectors: the pinned networks, 16 real rounds that verify, 6 tampered
// that are refused, 8 derivations (secret + round -> deal seed -> Gaps layout).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import * as beacon from "../../../server/web/beacon.js";
import { bytesToHex, commitment, hexToBytes } from "../../../server/web/drbg.js";
import { dealGrid, formatGrid } from "../../../server/web/gaps.js";

const v = JSON.parse(readFileSync(new URL("../../data/drand-rounds-v1.json", import.meta.url), "utf8"));
const roundOf = (e) => ({
  round: e.round, signature: hexToBytes(e.signature),
  previousSignature: e.previous_signature ? hexToBytes(e.previous_signature) : null,
});

test("the built-in networks are the vectors'", async () => {
  assert.deepEqual(Object.keys(beacon.BUILT_IN).sort(), Object.keys(v.networks).sort());
  for (const [name, spec] of Object.entries(v.networks)) {
    const net = beacon.BUILT_IN[name];
    assert.equal(net.chainHash, spec.chain_hash);
    assert.equal(bytesToHex(net.publicKey), spec.public_key);
    assert.equal(bytesToHex(net.genesisSeed), spec.genesis_seed);
    assert.equal(net.group, spec.signature_group);
    assert.equal(net.dst, spec.dst);
    assert.equal(net.period, spec.period);
    assert.equal(net.genesisTime, spec.genesis_time);
    assert.equal(await beacon.chainHashOf(net.period, net.genesisTime, net.publicKey, net.genesisSeed, net.beaconId), spec.chain_hash);
  }
});

test("16 real rounds verify", async () => {
  assert.equal(v.rounds.length, 16);
  for (const e of v.rounds) {
    const net = beacon.BUILT_IN[e.network];
    const r = roundOf(e);
    await beacon.verifyRound(net, r);
    assert.equal(bytesToHex(await beacon.randomness(r)), e.randomness);
    assert.equal(beacon.roundTime(net, e.round), e.time_unix);
  }
});

test("6 tampered rounds are refused", async () => {
  assert.equal(v.rejected.length, 6);
  for (const e of v.rejected) {
    await assert.rejects(beacon.verifyRound(beacon.BUILT_IN[e.network], roundOf(e)), (exc) => {
      assert.ok(exc instanceof beacon.BeaconError, `${e.why}: ${exc}`);
      assert.match(exc.message, /^the signature /);
      return true;
    }, e.why);
  }
});

test("8 derivations reproduce: deal seed and Gaps layout", async () => {
  assert.equal(v.derivations.length, 8);
  for (const d of v.derivations) {
    const seed = hexToBytes(d.secret);
    assert.equal(await commitment(seed), d.commitment);
    const net = beacon.BUILT_IN[d.network];
    const e = v.rounds.find((r) => r.network === d.network && r.round === d.round);
    const r = roundOf(e);
    await beacon.verifyRound(net, r);
    const deal = await beacon.dealSeed(seed, net, r);
    assert.equal(bytesToHex(deal), d.deal_seed);
    assert.deepEqual(formatGrid(await dealGrid(deal)), d.gaps_deal_rows);
  }
});

test("the round rule", () => {
  const q = beacon.QUICKNET;
  const t0 = q.genesisTime;
  assert.equal(beacon.firstRoundAt(q, t0 - 100), 1);
  assert.equal(beacon.firstRoundAt(q, t0 + 0.5), 2);
  assert.equal(beacon.firstRoundAt(q, t0 + 3), 2);
  assert.equal(beacon.firstRoundAt(q, t0 + 3.001), 3);
});

test("a networks file adds but never replaces", async () => {
  await assert.rejects(beacon.networksFromJson({ quicknet: v.networks.quicknet }), /built in/);
  await assert.rejects(beacon.networksFromJson({ mine: v.networks.quicknet }), /already known/);
  await assert.rejects(beacon.networksFromJson({ mine: { ...v.networks.quicknet, beacon_id: "mine" } }), /hash to chain/);
  await assert.rejects(beacon.networksFromJson([]), /JSON object/);
});
