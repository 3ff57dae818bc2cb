// samedeal-drbg-v1 (RNG.md) on Web Crypto: block(i) = HMAC-SHA256(seed, label || 0x00 ||
// uint64_be(i)); uniform integers by 4-byte big-endian rejection sampling; Fisher–Yates
// from the end. Works in browsers and in node 20 (globalThis.crypto.subtle).

const subtle = globalThis.crypto.subtle;
const keys = new Map(); // seed hex -> Promise<CryptoKey>
const ascii = new TextEncoder();

export function hexToBytes(hex) {
  if (hex.length % 2 || /[^0-9a-fA-F]/.test(hex)) throw new Error("not hex");
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

export function bytesToHex(bytes) {
  const b = new Uint8Array(bytes);
  let s = "";
  for (let i = 0; i < b.length; i++) s += b[i].toString(16).padStart(2, "0");
  return s;
}

export async function sha256(bytes) {
  return new Uint8Array(await subtle.digest("SHA-256", bytes));
}

/** sha256(seed) as 64 lowercase hex characters. */
export async function commitment(seedBytes) {
  return bytesToHex(await sha256(seedBytes));
}

function hmacKey(seedBytes) {
  const id = bytesToHex(seedBytes);
  let key = keys.get(id);
  if (!key) {
    key = subtle.importKey("raw", seedBytes, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    if (keys.size > 64) keys.clear();
    keys.set(id, key);
  }
  return key;
}

function blockMessage(label, i) {
  const l = ascii.encode(label);
  const msg = new Uint8Array(l.length + 9);
  msg.set(l, 0);
  msg[l.length] = 0;
  new DataView(msg.buffer).setBigUint64(l.length + 1, BigInt(i), false);
  return msg;
}

/** The byte stream of one (seed, label), read as 32-bit words. `prefetch` blocks are
 * asked for at once (Web Crypto is asynchronous; a shuffle knows how many it needs). */
export class Stream {
  constructor(seedBytes, label, prefetch = 1) {
    this.key = hmacKey(seedBytes);
    this.label = label;
    this.next = 0; // next block index to request
    this.pending = [];
    this.words = [];
    this.pos = 0;
    this.ask(prefetch);
  }

  ask(n) {
    for (let k = 0; k < n; k++) {
      const i = this.next++;
      this.pending.push(this.key.then((key) => subtle.sign("HMAC", key, blockMessage(this.label, i))));
    }
  }

  async u32() {
    if (this.pos === this.words.length) {
      if (!this.pending.length) this.ask(1);
      const block = new DataView(await this.pending.shift());
      this.words = [];
      for (let k = 0; k < 8; k++) this.words.push(block.getUint32(4 * k, false));
      this.pos = 0;
    }
    return this.words[this.pos++];
  }

  async uniform(n) {
    if (n <= 0) throw new Error("uniform needs n >= 1");
    const limit = 2 ** 32 - (2 ** 32 % n);
    for (;;) {
      const x = await this.u32();
      if (x < limit) return x % n;
    }
  }
}

/** A Fisher–Yates shuffle (from the end) on a fresh stream for `label`. */
export async function shuffled(seedBytes, label, items) {
  const out = items.slice();
  const stream = new Stream(seedBytes, label, Math.max(1, Math.ceil((out.length - 1) / 8)));
  for (let i = out.length - 1; i > 0; i--) {
    const j = await stream.uniform(i + 1);
    const t = out[i];
    out[i] = out[j];
    out[j] = t;
  }
  return out;
}

export const gapsDealLabel = () => "gaps/deal";
export const gapsRedealLabel = (playerId, k) => `gaps/redeal/${playerId}/${k}`;
export const klondikeDealLabel = (attempt) => `klondike/deal/${attempt}`;
