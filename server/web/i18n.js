// The browser's language (docs/I18N.md, issue 37): the catalogue of the chosen language,
// served by the server as /i18n/<lang>.json from the same .po files the terminal client and
// both command lines read, and Intl for dates, times, numbers, percentages and plurals, in
// the viewer's own time zone.
//
// The choice: the selector on every page (remembered in localStorage) > `?lang=xx` in the
// address > the browser's languages > English. `en-XA` is the pseudo-language: every
// catalogue string bracketed and accented (the test that finds forgotten strings).
//
// Pure parts (choose, negotiate, format, pseudo, pluralIndex) work in node too; the tests
// install a catalogue with setMessages.

export const LANGS = ["en", "pt-BR", "pt-PT", "es"];
export const PSEUDO = "en-XA";
/** Each language by its own name (the selector's options: not translated, on purpose). */
export const ENDONYMS = { en: "English", "pt-BR": "Português (Brasil)", "pt-PT": "Português (Portugal)", es: "Español" };
export const STORAGE_KEY = "samedeal.lang";

let current = "en";
let messages = {};
let english = {};

/** One language tag (any case, `_` or `-`) as one of ours, or null: pt-PT and the other
 * African and Asian Portuguese (pt-AO, pt-MZ, ...) read European Portuguese; pt and pt-BR
 * Brazilian; every es-*; every en-*; en-XA itself. */
export function negotiate(tag) {
  if (typeof tag !== "string" || !tag) return null;
  const parts = tag.trim().replace(/_/g, "-").split("-");
  const base = parts[0].toLowerCase();
  const region = (parts[1] || "").toUpperCase();
  if (base === "en") return region === "XA" ? PSEUDO : "en";
  if (base === "es") return "es";
  if (base === "pt") return region === "" || region === "BR" ? "pt-BR" : "pt-PT";
  return null;
}

/** The language to use: the remembered choice, else `?lang=`, else the first of the
 * browser's languages we speak, else English. */
export function choose({ stored = null, query = null, preferred = [] } = {}) {
  for (const candidate of [stored, query, ...(preferred || [])]) {
    const found = negotiate(candidate);
    if (found) return found;
  }
  return "en";
}

/** "{name} joined" with params: every {placeholder} replaced (numbers through Intl). */
export function format(text, params = {}) {
  return text.replace(/\{([a-zA-Z_][a-zA-Z0-9_]*)\}/g, (whole, name) => {
    if (!(name in params)) return whole;
    const value = params[name];
    return typeof value === "number" ? number(value) : String(value);
  });
}

const ACCENTED = { a: "á", b: "ƀ", c: "ç", d: "ð", e: "é", g: "ĝ", h: "ĥ", i: "í", j: "ĵ", k: "ķ", l: "ļ", n: "ñ", o: "ó", r: "ŕ", s: "š", t: "ţ", u: "ú", w: "ŵ", y: "ý", z: "ž", A: "Á", C: "Ç", D: "Ð", E: "É", G: "Ĝ", H: "Ĥ", L: "Ļ", R: "Ŕ", T: "Ţ", W: "Ŵ", Z: "Ž", I: "Í", N: "Ñ", O: "Ó", S: "Š", U: "Ú", Y: "Ý" };

/** The pseudo-language's form of an English string: accented letters, placeholders kept
 * as they are, the whole bracketed ("[Ţĥé ĝáƀ {cell}]"). */
export function pseudo(text) {
  const pieces = text.split(/(\{[a-zA-Z_][a-zA-Z0-9_]*\})/);
  const body = pieces.map((p, i) => (i % 2 ? p : p.replace(/[A-Za-z]/g, (ch) => ACCENTED[ch] || ch))).join("");
  return `[${body}]`;
}

/** A whole catalogue in the pseudo-language. */
export function pseudoMessages(en) {
  const out = {};
  for (const [key, value] of Object.entries(en)) out[key] = Array.isArray(value) ? value.map(pseudo) : pseudo(value);
  return out;
}

/** 0 (the "one" form) or 1 ("other") for `n` in `lang` (CLDR through Intl: in pt-BR 0 is
 * one, in pt-PT it is other). */
export function pluralIndex(lang, n) {
  return new Intl.PluralRules(lang === PSEUDO ? "en" : lang).select(n) === "one" ? 0 : 1;
}

/** Install a catalogue (and the English one for keys the language lacks). */
export function setMessages(lang, table, englishTable = null) {
  current = lang;
  messages = table || {};
  english = englishTable || (lang === "en" ? messages : english);
  if (typeof document !== "undefined") document.documentElement.lang = lang;
}

export function lang() {
  return current;
}

/** Whether the catalogue has `key` (in the language or in English). */
export function has(key) {
  return key in messages || key in english;
}

function lookup(key) {
  if (key in messages) return messages[key];
  if (key in english) return english[key];
  return null;
}

/** The message `key` with its params; unknown: the key itself (a test makes sure none is). */
export function t(key, params = {}) {
  const found = lookup(key);
  if (found === null) return key;
  return format(Array.isArray(found) ? found[1] : found, params);
}

/** The plural message `key` for `n` (also given as {n} to the text). */
export function tn(key, n, params = {}) {
  const found = lookup(key);
  if (found === null) return key;
  const forms = Array.isArray(found) ? found : [found, found];
  return format(forms[pluralIndex(current, n)], { n, ...params });
}

/** What an error reply says in this language: `reason.<reason>` with its params, else the
 * reply's own English message (an unknown reason). In English the message itself: it is
 * the server's English, and often more precise than the reason's ("this one mixes
 * Cyrillic and Latin"). */
export function errorText(reply, request = null) {
  if (!reply) return "";
  if (isQuota(reply)) return quotaText(reply, request);
  if (current === "en" && reply.message) return reply.message;
  const params = reply.params || {};
  const finer = `reason.${reply.reason}.${params.why}`; // the finer sentence a `why` param names
  if (reply.reason && params.why && has(finer)) return t(finer, params);
  if (reply.reason && has(`reason.${reply.reason}`)) return t(`reason.${reply.reason}`, params);
  return reply.message || reply.code || "";
}

/** A refusal by quota (PROTOCOL.md v1.4): `rate_limited` naming its `limit`. Unlike a
 * flood's "slow down", waiting a moment does not lift it, so no client resends it. */
export function isQuota(reply) {
  return Boolean(reply && reply.code === "rate_limited" && typeof reply.limit === "string" && reply.limit);
}

const QUOTA_MAX = { clubs_owned: 3, club_events: 5, codes: 10 }; // the contract's, if params lack them

/** A quota in words, in every language (English too: "You own 3 clubs, the most a player
 * may"): web.quota.<reason> (a limit said more precisely: a club's events open, or made
 * in a day), else web.quota.<limit>, else web.quota.other, with the reply's params (and
 * the request's `player` as {name}, whose quota it is when a club is handed over). */
export function quotaText(reply, request = null) {
  const params = { max: QUOTA_MAX[reply.limit] ?? "?", limit: reply.limit, ...(reply.params || {}) };
  const theirs = request && request.type === "set_owner" && typeof request.player === "string";
  if (theirs) params.name = request.player;
  const keys = [theirs ? `web.quota.${reply.limit}.theirs` : null, reply.reason ? `web.quota.${reply.reason}` : null, `web.quota.${reply.limit}`];
  return t(keys.find((key) => key && has(key)) || "web.quota.other", params);
}

/** "6♥ or 4♥", "6♥ ou 4♥", "6♥ o 4♥": Intl's list of alternatives. */
export function orList(items) {
  return new Intl.ListFormat(current === PSEUDO ? "en" : current, { type: "disjunction" }).format(items);
}

// -- Intl: numbers, dates, times ---------------------------------------------------------
const intlLang = () => (current === PSEUDO ? "en" : current);
/** Intl's words in the pseudo-language are bracketed too: they are localised, not forgotten. */
const mark = (text) => (current === PSEUDO ? `[${text}]` : text);

export function number(x, options = {}) {
  return new Intl.NumberFormat(intlLang(), options).format(x);
}

/** A fraction (0.5) as a percentage ("50%", "50 %"), at most `digits` decimals. */
export function percent(fraction, digits = 1, minDigits = 0) {
  return mark(new Intl.NumberFormat(intlLang(), { style: "percent", minimumFractionDigits: minDigits, maximumFractionDigits: digits }).format(fraction));
}

/** "1st", "2nd" / "1º" / "1.º": the catalogue's web.ordinal.<CLDR ordinal category>. */
export function ordinal(n) {
  const category = new Intl.PluralRules(intlLang(), { type: "ordinal" }).select(n);
  const key = `web.ordinal.${category}`;
  return t(has(key) ? key : "web.ordinal.other", { n: String(n) });
}

function parsed(when) {
  const d = when instanceof Date ? when : new Date(when);
  return Number.isNaN(d.getTime()) ? null : d;
}

/** A moment as date and time in the viewer's zone ("2 de dez. de 2026, 00:00"). */
export function dateTime(when) {
  const d = parsed(when);
  return d ? mark(new Intl.DateTimeFormat(intlLang(), { dateStyle: "medium", timeStyle: "short" }).format(d)) : String(when);
}

/** From one moment to another, said once where they share the day ("2 de dez. de 2026,
 * 22:37 – 23:37"): Intl's formatRange. */
export function dateRange(from, to) {
  const a = parsed(from);
  const b = parsed(to);
  if (!a || !b || b < a) return `${dateTime(from)} – ${dateTime(to)}`;
  return mark(new Intl.DateTimeFormat(intlLang(), { dateStyle: "medium", timeStyle: "short" }).formatRange(a, b));
}

export function dateOnly(when) {
  const d = parsed(when);
  return d ? mark(new Intl.DateTimeFormat(intlLang(), { dateStyle: "medium" }).format(d)) : String(when);
}

export function timeOnly(when) {
  const d = parsed(when);
  return d ? mark(new Intl.DateTimeFormat(intlLang(), { timeStyle: "short" }).format(d)) : String(when);
}

function unit(value, name) {
  return new Intl.NumberFormat(intlLang(), { style: "unit", unit: name, unitDisplay: "short" }).format(value);
}

/** A length of time in words: "42 s", "12 min", "3 h 12 min", "2 days". */
export function duration(ms) {
  return mark(plainDuration(ms));
}

function plainDuration(ms) {
  const s = Math.round(Math.abs(ms) / 1000);
  if (s < 90) return unit(s, "second");
  if (s < 5400) return unit(Math.round(s / 60), "minute");
  if (s < 172800) {
    const hours = Math.floor(s / 3600);
    const minutes = Math.floor((s % 3600) / 60);
    return minutes ? `${unit(hours, "hour")} ${unit(minutes, "minute")}` : unit(hours, "hour");
  }
  return new Intl.NumberFormat(intlLang(), { style: "unit", unit: "day", unitDisplay: "long" }).format(Math.round(s / 86400));
}

/** "in 3 hr 12 min", "em 42 s", "hace 2 días" from ms (future positive): Intl's units in
 * the catalogue's web.time.in / web.time.ago. */
export function relative(ms) {
  return t(ms >= 0 ? "web.time.in" : "web.time.ago", { duration: plainDuration(ms) });
}

// -- the page: choosing, loading, the selector ------------------------------------------
function storedChoice() {
  try {
    return localStorage.getItem(STORAGE_KEY);
  } catch {
    return null;
  }
}

/** Remember the selector's choice (null forgets it). */
export function remember(choice) {
  try {
    if (choice) localStorage.setItem(STORAGE_KEY, choice);
    else localStorage.removeItem(STORAGE_KEY);
  } catch {
    /* storage disabled: the choice lasts this page */
  }
}

async function fetchCatalogue(code) {
  const reply = await fetch(`/i18n/${encodeURIComponent(code)}.json`);
  if (!reply.ok) throw new Error(`catalogue ${code}: HTTP ${reply.status}`);
  return (await reply.json()).messages || {};
}

/** Choose the page's language and load its catalogue (and English, the fallback). */
export async function start() {
  const query = new URLSearchParams(location.search).get("lang");
  const chosen = choose({ stored: storedChoice(), query, preferred: navigator.languages || [navigator.language] });
  let en = {};
  try {
    en = await fetchCatalogue("en");
  } catch {
    /* no catalogue: keys show (the server is older or down) */
  }
  if (chosen === "en") return setMessages("en", en, en);
  if (chosen === PSEUDO) return setMessages(PSEUDO, pseudoMessages(en), pseudoMessages(en));
  let table = en;
  try {
    table = await fetchCatalogue(chosen);
  } catch {
    /* the language's catalogue is missing: English */
  }
  setMessages(chosen, table, en);
}

/** The header's selector: each language by its own name; a choice is remembered and the
 * page drawn again in it. */
export function selector(onChange) {
  const select = document.createElement("select");
  select.id = "lang";
  select.setAttribute("aria-label", t("web.lang.label"));
  select.title = t("web.lang.label");
  const codes = current === PSEUDO ? [...LANGS, PSEUDO] : LANGS;
  for (const code of codes) {
    const option = document.createElement("option");
    option.value = code;
    option.lang = code;
    option.translate = false;
    option.textContent = ENDONYMS[code] || code;
    if (code === current) option.selected = true;
    select.append(option);
  }
  select.addEventListener("change", () => {
    remember(select.value);
    onChange(select.value);
  });
  return select;
}

/** Fill every element with `data-i18n="key"` under `root` (index.html's fixed texts). */
export function translateStatic(root = document) {
  for (const el of root.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
}
