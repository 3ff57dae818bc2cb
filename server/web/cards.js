// Card codes and the canonical deck (RNG.md): a card is 0..51, suits C D H S, ranks A..K.
// AC = 0, 2C = 1, ..., KS = 51; rank = card % 13 (0 = ace, 12 = king).

export const RANKS = "A23456789TJQK";
export const SUITS = "CDHS";
export const SYMBOLS = { C: "♣", D: "♦", H: "♥", S: "♠" };
export const SUIT_NAMES = { C: "clubs", D: "diamonds", H: "hearts", S: "spades" };
const FROM_SYMBOL = { "♣": "C", "♦": "D", "♥": "H", "♠": "S" };
export const ACE = 0;
export const TWO = 1;
export const KING = 12;
export const DECK = Array.from({ length: 52 }, (_, i) => i);
export const CODES = DECK.map((c) => RANKS[c % 13] + SUITS[Math.floor(c / 13)]);
const BY_CODE = new Map(CODES.map((code, i) => [code, i]));

export const rank = (card) => card % 13;
export const suit = (card) => Math.floor(card / 13);
export const isRed = (card) => suit(card) === 1 || suit(card) === 2;
export const code = (card) => CODES[card];

export class BadCard extends Error {}

/** A card from its code; also '10' for T, lower case and ♣♦♥♠ (server/games/cards.py). */
export function parse(text) {
  const exact = BY_CODE.get(text);
  if (exact !== undefined) return exact;
  let t = text.trim().toUpperCase();
  const last = t.slice(-1);
  if (t && FROM_SYMBOL[last]) t = t.slice(0, -1) + FROM_SYMBOL[last];
  if (t.startsWith("10")) t = "T" + t.slice(2);
  const card = BY_CODE.get(t);
  if (card === undefined) {
    throw new BadCard(
      `unknown card ${pyRepr(text)}: use rank A23456789TJQK (or 10) and suit CDHS`,
    );
  }
  return card;
}

/** How a person reads a code: "10♥" for "TH". */
export function label(codeText) {
  const r = codeText[0] === "T" ? "10" : codeText[0];
  return r + SYMBOLS[codeText[1]];
}

/** Python's repr() of JSON-like values, so messages read exactly as the Python verifier's. */
export function pyRepr(value) {
  if (value === null || value === undefined) return "None";
  if (value === true) return "True";
  if (value === false) return "False";
  if (typeof value === "number") {
    if (Number.isInteger(value)) return String(value);
    return String(value);
  }
  if (typeof value === "string") return reprString(value);
  if (Array.isArray(value)) return "[" + value.map(pyRepr).join(", ") + "]";
  if (typeof value === "object") {
    return (
      "{" +
      Object.entries(value)
        .map(([k, v]) => `${reprString(k)}: ${pyRepr(v)}`)
        .join(", ") +
      "}"
    );
  }
  return String(value);
}

// What Python's str.isprintable() refuses (control, format, private, unassigned,
// separators but the space): repr() escapes these.
const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u;

function reprString(s) {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    const cp = ch.codePointAt(0);
    if (ch === "\\") out += "\\\\";
    else if (ch === quote) out += "\\" + quote;
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (ch !== " " && UNPRINTABLE.test(ch)) {
      out += cp < 0x100 ? "\\x" + cp.toString(16).padStart(2, "0")
        : cp < 0x10000 ? "\\u" + cp.toString(16).padStart(4, "0") : "\\U" + cp.toString(16).padStart(8, "0");
    } else out += ch;
  }
  return out + quote;
}
