// The beacon of a record's or bundle's tournament, as the in-browser verifier checks it:
// server/audit/beacon_check.py in JavaScript, with the same words (RECORD.md v1.3).

import { BUILT_IN, BeaconError, dealSeed, firstRoundAt, parseHex, roundTime, verifyRound } from "./beacon.js";
import { hexToBytes } from "./drbg.js";
import { bare, show } from "./pyfmt.js";
import { parseIso } from "./timing.js";
import { said } from "./said.js";

/** The beacon is not what it must be, in one line (verify.js reports it). */
export class BeaconDifference extends Error {}
/** Not a record or bundle at all: verify.js's Unreadable takes its message. */
export class BeaconUnreadable extends Error {}

/** The seed every label reads: the seed itself, or the deal seed of the tournament's beacon
 * round once verified (a known network, its chain, a round not before the start, a valid
 * signature). server/audit/beacon_check.py's check_beacon, word for word. */
export async function checkBeacon(t, seed, report, networks, dealt) {
  const b = t.beacon;
  if (b === null) return seed;
  const what = said("audit.beacon.round", { id: t.id, round: b.round, network: show(b.network) },
    `tournament ${t.id}: beacon round ${b.round} of ${show(b.network)}`);
  const net = Object.hasOwn(networks, b.network) ? networks[b.network] : null;
  if (net === null) throw new BeaconDifference(`tournament ${t.id}: unknown beacon network ${show(b.network)}`);
  if (b.chain_hash.toLowerCase() !== net.chainHash) {
    throw new BeaconDifference(`${what}: chain_hash ${bare(b.chain_hash)} is not the network's ${net.chainHash}`);
  }
  if (b.round < 1 || b.round >= 2 ** 64) throw new BeaconDifference(`${what}: not a round number (1 or more)`);
  let startMs;
  try {
    startMs = Math.floor(parseIso(t.starts_at) / 1000);
  } catch (exc) {
    throw new BeaconUnreadable(`tournament ${t.id}: its start cannot be read: ${exc.message}`);
  }
  if (roundTime(net, b.round) * 1000 < startMs) {
    throw new BeaconDifference(`${what}: it comes before the start (the rule gives round ${firstRoundAt(net, startMs / 1000)} or later)`);
  }
  if (b.signature === null) {
    if (dealt) throw new BeaconDifference(`${what}: no signature`);
    report.notes.push(said("audit.beacon.void", { what }, `${what} was never verified: the tournament was void, no game dealt`));
    return seed;
  }
  let r;
  try {
    r = beaconRound(net, b);
    await verifyRound(net, r);
  } catch (exc) {
    if (exc instanceof BeaconError) throw new BeaconDifference(`${what}: ${exc.message}`);
    throw exc;
  }
  report.checked.push(said("audit.beacon.verified", { what }, `${what} verifies against the network's public key; the deals come from its deal seed`));
  return dealSeed(seed, net, r);
}

function beaconRound(net, b) {
  const previousSignature = net.chained && b.previous_signature !== null ? parseHex(b.previous_signature, "previous_signature") : null;
  return { round: b.round, signature: parseHex(b.signature ?? "", "signature"), previousSignature };
}

/** The seed a tournament's labels read, for a replay of a document already verified: its
 * beacon's deal seed when it has one. */
export async function dealingSeed(t, networks = BUILT_IN) {
  const seed = hexToBytes(t.seed);
  const b = t.beacon;
  if (!b || !b.signature || !Object.hasOwn(networks, b.network)) return seed;
  const net = networks[b.network];
  return dealSeed(seed, net, beaconRound(net, { previous_signature: null, ...b }));
}

