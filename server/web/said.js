// The verifier's check sentences (verify.js, beaconcheck.js) are made in English, the
// words `samedeal verify` and the Python verifier say (tests compare them); each is also
// kept here with its catalogue key and params (server/i18n/said.py on the Python side), so
// that the page says it again in its language with `speak`.

import { t } from "./i18n.js";

const WORDS = new Map(); // English text -> [key, params]

/** `english`, the catalogue's `key` with `params` said in English, kept to be said again. */
export function said(key, params, english) {
  WORDS.set(english, [key, params]);
  return english;
}

/** `text` in the page's language when it was `said`, its said params first; else
 * unchanged. Numbers stay as the verifier wrote them (no Intl grouping): the page says
 * what `samedeal verify --lang` says, word for word. */
export function speak(text) {
  const found = WORDS.get(text);
  if (found === undefined) return text;
  const [key, params] = found;
  const spoken = {};
  for (const [name, value] of Object.entries(params)) spoken[name] = typeof value === "string" ? speak(value) : String(value);
  return t(key, spoken);
}

/** Drop what earlier verifications said (a new document is being verified). */
export function forget() {
  WORDS.clear();
}
