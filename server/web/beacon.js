// drand beacon rounds in the browser: the second implementation of server/audit/drand.py,
// with the same words. A round verifies when its signature, a point of the network's
// signature group (decoded with its subgroup check), satisfies the pairing equation with
// H(m) = RFC 9380 hash-to-curve of m = sha256(uint64_be(round)) (chained: sha256(
// previous_signature || uint64_be(round))) and the network's pinned public key. The
// pairing arithmetic is @noble/curves (audited), vendored as one ES module (vendor/).

import { bls12_381 } from "./vendor/noble-bls12-381.js";
import { bytesToHex, hexToBytes, sha256 } from "./drbg.js";
import { said } from "./said.js";

const G1_DST = "BLS_SIG_BLS12381G1_XMD:SHA-256_SSWU_RO_NUL_";
const G2_DST = "BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_NUL_";
/** drand's schemes: [signature group, chained, DST]. */
export const SCHEMES = {
  "bls-unchained-g1-rfc9380": ["G1", false, G1_DST],
  "pedersen-bls-chained": ["G2", true, G2_DST],
  "pedersen-bls-unchained": ["G2", false, G2_DST],
};
const POINT_BYTES = { G1: 48, G2: 96 };
const RELAYS = ["https://api.drand.sh", "https://api2.drand.sh", "https://api3.drand.sh", "https://drand.cloudflare.com"];

/** A network or round that is not what it must be; its message is `said` (a key of
 * audit.beacon_error.*), so that whoever shows it says it in the page's language. */
export class BeaconError extends Error {}

const error = (name, params, english) => new BeaconError(said(`audit.beacon_error.${name}`, params, english));

function network(name, spec) {
  const [group, chained, dst] = SCHEMES[spec.scheme];
  return {
    name, chainHash: spec.chain_hash, scheme: spec.scheme, beaconId: spec.beacon_id, period: spec.period,
    genesisTime: spec.genesis_time, publicKey: hexToBytes(spec.public_key), genesisSeed: hexToBytes(spec.genesis_seed),
    group, chained, dst, relays: spec.relays || [],
  };
}

export const QUICKNET = network("quicknet", {
  chain_hash: "52db9ba70e0cc0f6eaf7803dd07447a1f5477735fd3f661792ba94600c84e971",
  scheme: "bls-unchained-g1-rfc9380", beacon_id: "quicknet", period: 3, genesis_time: 1692803367,
  public_key: "83cf0f2896adee7eb8b5f01fcad3912212c437e0073e911fb90022d3e760183c8c4b450b6a0a6c3ac6a5776a2d1064510d1fec758c921cc22b0e17e63aaf4bcb5ed66304de9cf809bd274ca73bab4af5a6e9c76a4bc09e76eae8991ef5ece45a",
  genesis_seed: "f477d5c89f21a17c863a7f937c6a6d15859414d2be09cd448d4279af331c5d3e", relays: RELAYS,
});
export const DEFAULT = network("default", {
  chain_hash: "8990e7a9aaed2ffed73dbd7092123d6f289930540d7651336225dc172e51b2ce",
  scheme: "pedersen-bls-chained", beacon_id: "default", period: 30, genesis_time: 1595431050,
  public_key: "868f005eb8e6e4ca0a47c8a77ceaa5309a47978a7c71bc5cce96366b5d7a569937c529eeda66c7293784a9402801af31",
  genesis_seed: "176f93498eac9ca337150b46d21dd58673ea4e3581185f869672e59fa4cb390a", relays: RELAYS,
});
export const BUILT_IN = Object.freeze({ quicknet: QUICKNET, default: DEFAULT });

export const roundTime = (net, round) => net.genesisTime + (round - 1) * net.period;

/** The first round whose time is at or after `t` (unix seconds; round 1 before genesis). */
export function firstRoundAt(net, t) {
  if (t <= net.genesisTime) return 1;
  const r = Math.floor((t - net.genesisTime) / net.period) + 1;
  return roundTime(net, r) >= t ? r : r + 1;
}

const HEX = /^(?:[0-9a-fA-F]{2}){0,512}$/;

/** Bytes from hex digits only (at most 512 bytes); BeaconError otherwise (naming the field
 * `what`, of `network` when a network's). */
export function parseHex(value, what, network = null) {
  if (typeof value !== "string" || !HEX.test(value)) {
    if (network !== null) throw error("network_hex", { network, what }, `the network ${network}'s ${what} is not hex`);
    throw error("not_hex", { what }, `the ${what} is not hex`);
  }
  return hexToBytes(value);
}

function u64(n) {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, BigInt(n), false);
  return out;
}

function concat(...parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** What the network signed for round {round, signature, previousSignature}. */
export async function message(net, r) {
  let prefix = new Uint8Array();
  if (net.chained) {
    if (r.previousSignature == null) throw error("previous_missing", { round: r.round }, `round ${r.round} of a chained network needs its previous_signature`);
    prefix = r.previousSignature;
  }
  return sha256(concat(prefix, u64(r.round)));
}

/** Nothing if the round carries the network's signature; BeaconError saying why not. */
export async function verifyRound(net, r) {
  const group = net.group;
  if (r.round < 1 || r.round >= 2 ** 64) throw error("round_number", { round: r.round }, `round ${r.round} is not a round number (1 or more)`);
  if (r.signature.length !== POINT_BYTES[group]) {
    const [size, point] = [r.signature.length, POINT_BYTES[group]];
    throw error("signature_size", { size, group, point }, `the signature is ${size} bytes, a point of ${group} is ${point}`);
  }
  const msg = await message(net, r);
  const mode = group === "G1" ? bls12_381.shortSignatures : bls12_381.longSignatures;
  let sig;
  try {
    sig = mode.Signature.fromBytes(r.signature);
    sig.assertValidity();
  } catch {
    throw error("signature_point", { group }, `the signature is not a point of ${group}`);
  }
  if (!mode.verify(sig, mode.hash(msg, net.dst), net.publicKey)) {
    throw error("signature_wrong", {}, "the signature does not verify against the network's public key");
  }
}

/** The round's randomness: sha256 of its signature. */
export const randomness = (r) => sha256(r.signature);

/** HMAC-SHA256(seed, "samedeal/beacon/v1" || 0x00 || chain_hash || uint64_be(R) ||
 * randomness): the seed every label reads in a tournament with a beacon (RNG.md v1.3). */
export async function beaconDealSeed(seedBytes, chainHash, round, rand) {
  const label = new TextEncoder().encode("samedeal/beacon/v1");
  const msg = concat(label, new Uint8Array([0]), chainHash, u64(round), rand);
  const key = await globalThis.crypto.subtle.importKey("raw", seedBytes, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return new Uint8Array(await globalThis.crypto.subtle.sign("HMAC", key, msg));
}

export async function dealSeed(seedBytes, net, r) {
  return beaconDealSeed(seedBytes, hexToBytes(net.chainHash), r.round, await randomness(r));
}

/** drand's chain hash of a network's parameters. */
export async function chainHashOf(period, genesisTime, publicKey, genesisSeed, beaconId) {
  const head = new Uint8Array(12);
  const view = new DataView(head.buffer);
  view.setUint32(0, period, false);
  view.setBigInt64(4, BigInt(genesisTime), false);
  const id = beaconId === "default" ? new Uint8Array() : new TextEncoder().encode(beaconId);
  return bytesToHex(await sha256(concat(head, publicKey, genesisSeed, id)));
}

/** The built-in networks plus those of a networks file (an object shaped like the
 * vectors' `networks`); a file cannot replace a built-in network, by name or by chain. */
export async function networksFromJson(data) {
  if (data === null || typeof data !== "object" || Array.isArray(data)) throw error("networks_file", {}, "a networks file is a JSON object of networks");
  const out = { ...BUILT_IN };
  const chains = new Set(Object.values(BUILT_IN).map((n) => n.chainHash));
  for (const [name, spec] of Object.entries(data)) {
    if (Object.hasOwn(BUILT_IN, name)) throw error("built_in", { network: `'${name}'` }, `network '${name}' is built in and cannot be replaced`);
    const net = await networkFromJson(name, spec);
    if (chains.has(net.chainHash)) throw error("chain_known", { network: `'${name}'`, chain: net.chainHash }, `network '${name}': chain ${net.chainHash} is already known`);
    chains.add(net.chainHash);
    out[name] = net;
  }
  return out;
}

async function networkFromJson(name, spec) {
  const shown = `'${name}'`;
  const bad = (key, params, why) => error(key, { network: shown, ...params }, `network ${shown}: ${why}`);
  if (spec === null || typeof spec !== "object" || Array.isArray(spec)) throw bad("network_object", {}, "not a JSON object");
  if (!Object.hasOwn(SCHEMES, spec.scheme)) {
    const [scheme, known] = [JSON.stringify(spec.scheme), Object.keys(SCHEMES).sort().join(", ")];
    throw bad("scheme", { scheme, known }, `scheme ${scheme} is not one of ${known}`);
  }
  const [group, , dst] = SCHEMES[spec.scheme];
  if ((spec.signature_group ?? group) !== group || (spec.dst ?? dst) !== dst) throw bad("scheme_group", { scheme: spec.scheme, group, dst }, `scheme ${spec.scheme} signs on ${group} with DST ${dst}`);
  if (!Number.isInteger(spec.period) || spec.period <= 0 || spec.period >= 2 ** 32) throw bad("period", {}, "period is not a positive integer");
  if (!Number.isInteger(spec.genesis_time) || spec.genesis_time < 0) throw bad("genesis_time", {}, "genesis_time is not a unix time");
  const beaconId = spec.beacon_id ?? name;
  const net = network(name, {
    ...spec, beacon_id: beaconId, chain_hash: String(spec.chain_hash ?? "").toLowerCase(),
    public_key: bytesToHex(parseHex(spec.public_key, "public_key", shown)),
    genesis_seed: bytesToHex(parseHex(spec.genesis_seed, "genesis_seed", shown)),
  });
  try {
    (group === "G1" ? bls12_381.G2 : bls12_381.G1).Point.fromBytes(net.publicKey).assertValidity();
  } catch {
    const other = group === "G1" ? "G2" : "G1";
    throw bad("public_key", { group: other }, `its public key is not a point of ${other}`);
  }
  const made = await chainHashOf(net.period, net.genesisTime, net.publicKey, net.genesisSeed, beaconId);
  if (made !== net.chainHash) throw bad("chain_made", { chain: made }, `its parameters hash to chain ${made}`);
  return net;
}
