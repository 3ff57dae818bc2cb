// The verifier's check sentences and differences (verify.js, beaconcheck.js, amended.js,
// battle.js) are made in English, the
// words `samedeal verify` and the Python verifier say (tests compare them); each is also
// kept here with its catalogue key and params (server/i18n/said.py on the Python side), so
// that the page says it again in its language with `speak`.

import { has, lang, t } from "./i18n.js";

const WORDS = new Map(); // English text -> [key, params]

/** `english`, the catalogue's `key` with `params` said in English, kept to be said again. */
export function said(key, params, english) {
  WORDS.set(english, [key, params]);
  return english;
}

/** A game's own `message` for its stable `reason` (an ActionError), kept to be said
 * again: English is the message itself, another language says `reason.<reason>`
 * (server/i18n/said.py `told`). */
export function told(reason, message) {
  WORDS.set(message, [`reason.${reason}`, {}, undefined, true]);
  return message;
}

/** `text` in the page's language when it was `said`, its said params first; else
 * unchanged. Numbers stay as the verifier wrote them (no Intl grouping): the page says
 * what `samedeal verify --lang` says, word for word. */
export function speak(text) {
  const found = WORDS.get(text);
  if (found === undefined) return text;
  const [key, params, short, own] = found;
  if (own && (lang() === "en" || !has(key))) return text;
  const spoken = {};
  for (const [name, value] of Object.entries(params)) spoken[name] = typeof value === "string" ? speak(value) : String(value);
  const out = t(key, spoken);
  return short === undefined ? out : short(out);
}

/** `short(text)`, kept to be said again cut the same way when `text` was `said` (a long
 * difference made one line: server/audit/oneline.py). */
export function shortened(text, short) {
  const cut = short(text);
  const found = WORDS.get(text);
  if (found !== undefined && cut !== text) WORDS.set(cut, [found[0], found[1], short]);
  return cut;
}

/** Drop what earlier verifications said (a new document is being verified). */
export function forget() {
  WORDS.clear();
}
