// samedeal-log/1 receipts (RECORD.md "Receipts"), mirroring server/audit/receipts.py:
//   h0  = SHA-256("samedeal-log/1\n" + commitment + "\n" + player_id)
//   h_k = SHA-256(h_{k-1} || canonical({"seq": k, "at_ms": t, "action": A}))
// log_root = SHA-256 over "<player_id>:<log_hash>\n" lines in ascending player id.

import { bytesToHex, sha256 } from "./drbg.js";
import { said } from "./said.js";

const utf8 = new TextEncoder();
const ESC = { '"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f" };

function byCodePoint(a, b) {
  const x = Array.from(a);
  const y = Array.from(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i].codePointAt(0) - y[i].codePointAt(0);
    if (d) return d;
  }
  return x.length - y.length;
}

function str(s, escapeDel) {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const ch = s[i];
    const u = s.charCodeAt(i);
    if (ESC[ch]) out += ESC[ch];
    else if (u < 0x20 || u > 0x7e && (u !== 0x7f || escapeDel)) out += "\\u" + u.toString(16).padStart(4, "0");
    else out += ch;
  }
  return out + '"';
}

function dump(x, escapeDel) {
  if (x === null) return "null";
  if (x === true) return "true";
  if (x === false) return "false";
  if (typeof x === "number") return Number.isInteger(x) ? String(x) : String(x);
  if (typeof x === "string") return str(x, escapeDel);
  if (Array.isArray(x)) return "[" + x.map((v) => dump(v, escapeDel)).join(",") + "]";
  const keys = Object.keys(x).sort(byCodePoint);
  return "{" + keys.map((k) => str(k, escapeDel) + ":" + dump(x[k], escapeDel)).join(",") + "}";
}

/** RECORD.md's canonical form: keys sorted at every level, no whitespace, non-ASCII as
 * \uXXXX. (The server writes ASCII text as orjson does, which leaves DEL raw, and any
 * other text as Python's json.dumps(ensure_ascii=True), which escapes it: so does this.) */
export function canonical(x) {
  return dump(x, hasNonAscii(x));
}

function hasNonAscii(x) {
  if (typeof x === "string") return /[^\x00-\x7f]/.test(x);
  if (x === null || typeof x !== "object") return false;
  if (Array.isArray(x)) return x.some(hasNonAscii);
  return Object.keys(x).some((k) => hasNonAscii(k) || hasNonAscii(x[k]));
}

export async function genesis(commitment, playerId) {
  return sha256(utf8.encode(`samedeal-log/1\n${commitment.toLowerCase()}\n${playerId}`));
}

export async function step(head, seq, atMs, actionText) {
  const entry = utf8.encode(`{"action":${actionText},"at_ms":${atMs},"seq":${seq}}`);
  const buf = new Uint8Array(head.length + entry.length);
  buf.set(head, 0);
  buf.set(entry, head.length);
  return sha256(buf);
}

/** hex(h_n) over [seq, at_ms, action] triples, each action as the record stores it. */
export async function logHash(commitment, playerId, triples) {
  let head = await genesis(commitment, playerId);
  for (const [seq, atMs, action] of triples) head = await step(head, seq, atMs, canonical(action));
  return bytesToHex(head);
}

/** Every head h_0..h_n (the replay viewer shows the receipt after each action). */
export async function logHeads(commitment, playerId, triples) {
  let head = await genesis(commitment, playerId);
  const heads = [bytesToHex(head)];
  for (const [seq, atMs, action] of triples) {
    head = await step(head, seq, atMs, canonical(action));
    heads.push(bytesToHex(head));
  }
  return heads;
}

export async function logRoot(pairs) {
  const lines = pairs
    .slice()
    .sort((a, b) => a[0] - b[0])
    .map(([pid, h]) => `${pid}:${h}\n`)
    .join("");
  return bytesToHex(await sha256(utf8.encode(lines)));
}

/** "the record is malformed: <why>", kept to be said again (said.js). */
function malformed(key, why) {
  return said("audit.receipt.malformed", { why: said(`audit.receipt.${key}`, {}, why) }, `the record is malformed: ${why}`);
}

/** null when the record's log after `seq` actions hashes to `receipt`; else why not (in
 * English, kept by said.js to be said again with `speak`). */
export async function checkReceipt(record, seq, receipt) {
  const t = record && record.tournament;
  const commitment = t && t.commitment;
  const pid = record && record.player && record.player.id;
  const actions = record && record.actions;
  if (typeof commitment !== "string") return malformed("no_commitment", "no tournament commitment");
  if (!Number.isInteger(pid)) return malformed("no_player", "no player id");
  if (!Array.isArray(actions)) return malformed("no_actions", "no action list");
  if (actions.length < seq) {
    const english = `the record lacks acknowledged actions: it has ${actions.length}, the receipt acknowledges ${seq}`;
    return said("audit.receipt.lacks", { has: actions.length, seq }, english);
  }
  const head = await logHash(commitment, pid, actions.slice(0, seq).map((a) => [a.seq, a.at_ms, a.action]));
  if (head !== receipt.toLowerCase()) {
    const english = `the record's log after ${seq} actions hashes to ${head}, not the receipt's ${receipt.toLowerCase()}: the acknowledged log was changed`;
    return said("audit.receipt.changed", { seq, head, receipt: receipt.toLowerCase() }, english);
  }
  return null;
}
