// How the Python verifier words what a file says (server/audit/verify.py), so that both
// verifiers name a difference in the same words: `show` is its reprlib.Repr (strings of
// 80, integers of 44 characters, 4 items, 3 levels, dict keys sorted), `oneLine` its cut
// to one printable line of 300 characters, `bare` its cut of a claimed hash.

import { pyRepr } from "./cards.js";

const MAX = { string: 80, other: 80, long: 44, level: 3, items: 4 };
const FILL = "...";

function cutMiddle(s, max) {
  const i = Math.max(0, Math.floor((max - 3) / 2));
  const j = Math.max(0, max - 3 - i);
  return s.slice(0, i) + FILL + s.slice(s.length - j);
}

const cps = (s) => Array.from(s);

function reprStr(x) {
  const chars = cps(x);
  let s = pyRepr(chars.slice(0, MAX.string).join(""));
  if (cps(s).length > MAX.string) {
    const i = Math.max(0, Math.floor((MAX.string - 3) / 2));
    const j = Math.max(0, MAX.string - 3 - i);
    const sc = cps(pyRepr(chars.slice(0, i).concat(chars.slice(chars.length - j)).join("")));
    s = sc.slice(0, i).join("") + FILL + sc.slice(sc.length - j).join("");
  }
  return s;
}

function byCodePoint(a, b) {
  const x = cps(a);
  const y = cps(b);
  for (let k = 0; k < Math.min(x.length, y.length); k++) {
    const d = x[k].codePointAt(0) - y[k].codePointAt(0);
    if (d) return d;
  }
  return x.length - y.length;
}

function repr1(x, level) {
  if (typeof x === "string") return reprStr(x);
  if (typeof x === "number" && Number.isInteger(x)) {
    const s = String(x);
    return s.length > MAX.long ? cutMiddle(s, MAX.long) : s;
  }
  if (Array.isArray(x)) {
    if (level <= 0 && x.length) return `[${FILL}]`;
    const pieces = x.slice(0, MAX.items).map((e) => repr1(e, level - 1));
    if (x.length > MAX.items) pieces.push(FILL);
    return `[${pieces.join(", ")}]`;
  }
  if (x !== null && typeof x === "object") {
    const keys = Object.keys(x);
    if (!keys.length) return "{}";
    if (level <= 0) return `{${FILL}}`;
    const pieces = keys.sort(byCodePoint).slice(0, MAX.items).map((k) => `${repr1(k, level - 1)}: ${repr1(x[k], level - 1)}`);
    if (keys.length > MAX.items) pieces.push(FILL);
    return `{${pieces.join(", ")}}`;
  }
  const s = pyRepr(x);
  return s.length > MAX.other ? cutMiddle(s, MAX.other) : s;
}

/** reprlib's repr of a JSON value, as verify.show. */
export const show = (value) => repr1(value, MAX.level);

/** A claimed hash as it stands, cut at 80 characters. */
export const bare = (text) => (cps(text).length <= 80 ? text : cps(text).slice(0, 80).join("") + "…");

/** A standings row: keys in their order, values through show. */
export const row = (r) => "{" + Object.entries(r).map(([k, v]) => `${pyRepr(k)}: ${show(v)}`).join(", ") + "}";

const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u;

function escapeChar(c) {
  const cp = c.codePointAt(0);
  if (c === "\n") return "\\n";
  if (c === "\r") return "\\r";
  if (c === "\t") return "\\t";
  if (cp < 0x100) return "\\x" + cp.toString(16).padStart(2, "0");
  if (cp < 0x10000) return "\\u" + cp.toString(16).padStart(4, "0");
  return "\\U" + cp.toString(16).padStart(8, "0");
}

/** One printable line of at most about `limit` characters (verify.one_line). */
export function oneLine(text, limit = 300) {
  const all = cps(text);
  const cut = all.slice(0, limit + 1);
  let line = cut.map((c) => (c !== " " && UNPRINTABLE.test(c) ? escapeChar(c) : c)).join("");
  if (cps(line).length > limit || all.length > cut.length) line = cps(line).slice(0, limit).join("") + "…";
  return line;
}

/** 1234567 -> "1,234,567" (Python's format with ","). */
export const thousands = (n) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
