// The browser's language module (server/web/i18n.js) and the web.* part of the catalogues:
// the choice order, plurals by CLDR, the pseudo-language, placeholders, error reasons with
// their English fallback, Intl's units; and every key the pages name, in all four languages.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { test } from "node:test";

import * as i18n from "../../../server/web/i18n.js";
import { readPo } from "./catalogue.mjs";

const LANGS = ["en", "pt-BR", "pt-PT", "es"];
const CATALOGUES = Object.fromEntries(LANGS.map((lang) => [lang, readPo(lang)]));

test("the choice: the selector's, else ?lang, else the browser's languages, else English", () => {
  assert.equal(i18n.choose({ stored: "pt-PT", query: "es", preferred: ["pt-BR"] }), "pt-PT");
  assert.equal(i18n.choose({ stored: null, query: "es", preferred: ["pt-BR"] }), "es");
  assert.equal(i18n.choose({ stored: "xx", query: "zz", preferred: ["fr-FR", "pt", "en"] }), "pt-BR");
  assert.equal(i18n.choose({ preferred: ["fr-FR", "de"] }), "en");
  assert.equal(i18n.choose({}), "en");
  assert.equal(i18n.negotiate("es-MX"), "es");
  assert.equal(i18n.negotiate("pt_PT"), "pt-PT");
  assert.equal(i18n.negotiate("pt-AO"), "pt-PT");
  assert.equal(i18n.negotiate("PT-br"), "pt-BR");
  assert.equal(i18n.negotiate("en-GB"), "en");
  assert.equal(i18n.negotiate("en-XA"), "en-XA");
  assert.equal(i18n.negotiate(""), null);
});

test("plurals: 0 is singular in pt-BR and plural in pt-PT, es and en", () => {
  i18n.setMessages("pt-BR", CATALOGUES["pt-BR"], CATALOGUES.en);
  assert.equal(i18n.tn("web.entrants", 0), "0 participante");
  assert.equal(i18n.tn("web.entrants", 2), "2 participantes");
  i18n.setMessages("pt-PT", CATALOGUES["pt-PT"], CATALOGUES.en);
  assert.equal(i18n.tn("web.entrants", 0), "0 participantes");
  assert.equal(i18n.tn("web.entrants", 1), "1 participante");
  i18n.setMessages("es", CATALOGUES.es, CATALOGUES.en);
  assert.equal(i18n.tn("web.entrants", 0), "0 participantes");
  i18n.setMessages("en", CATALOGUES.en);
  assert.equal(i18n.tn("web.entrants", 1), "1 entrant");
  assert.equal(i18n.tn("web.entrants", 1234), "1,234 entrants");
});

test("placeholders, unknown keys, and error reasons with the English fallback", () => {
  i18n.setMessages("es", { "reason.dead_gap": "nada entra en el hueco de {cell}", "web.x": "hola {name}" }, { "web.only_en": "only English" });
  assert.equal(i18n.t("web.x", { name: "José" }), "hola José");
  assert.equal(i18n.t("web.only_en"), "only English");
  assert.equal(i18n.t("web.nothing"), "web.nothing");
  assert.equal(i18n.errorText({ code: "illegal", reason: "dead_gap", params: { cell: "B3" }, message: "dead gap" }), "nada entra en el hueco de B3");
  assert.equal(i18n.errorText({ code: "illegal", reason: "brand_new", params: {}, message: "a new reason" }), "a new reason");
  assert.equal(i18n.errorText({ code: "bad_request", message: "no reason given" }), "no reason given");
  // a `why` param names a finer sentence, when the catalogue has it (reason.bad_name.length)
  i18n.setMessages("es", CATALOGUES.es, CATALOGUES.en);
  const long = { code: "bad_request", reason: "bad_name", params: { why: "length", length: 40, max: 32 }, message: "a name is 1-32" };
  assert.equal(i18n.errorText(long), "Un nombre tiene de 1 a 32 caracteres; este tiene 40.");
  assert.equal(i18n.errorText({ ...long, params: { why: "unheard_of" } }), i18n.t("reason.bad_name"));
  i18n.setMessages("en", { "reason.bad_name": "A name is letters" });
  assert.equal(i18n.errorText({ code: "bad_request", reason: "bad_name", message: "A name …: this one mixes Cyrillic and Latin" }),
    "A name …: this one mixes Cyrillic and Latin"); // English: the server's own words
});

test("the pseudo-language brackets and accents every message and keeps placeholders", () => {
  assert.equal(i18n.pseudo("The gap at {cell}"), "[Ţĥé ĝáp áţ {cell}]");
  const xa = i18n.pseudoMessages(CATALOGUES.en);
  for (const [key, value] of Object.entries(xa)) {
    for (const text of [value].flat()) assert.match(text, /^\[.*\]$/s, key);
  }
  i18n.setMessages("en-XA", xa, xa);
  assert.equal(i18n.tn("web.entrants", 3), "[3 éñţŕáñţš]");
});

test("relative times, dates and percentages come from Intl in the page's language", () => {
  i18n.setMessages("pt-BR", CATALOGUES["pt-BR"], CATALOGUES.en);
  assert.equal(i18n.relative(42_000), "em 42 s");
  assert.equal(i18n.relative(-3 * 86_400_000), "há 3 dias");
  assert.match(i18n.relative((3 * 3600 + 12 * 60) * 1000), /^em 3 h 12 min$/);
  assert.equal(i18n.percent(0.456), "45,6%");
  i18n.setMessages("es", CATALOGUES.es, CATALOGUES.en);
  assert.equal(i18n.relative(10 * 60_000), "dentro de 10 min");
  assert.equal(i18n.orList(["6♥", "4♥"]), "6♥ o 4♥");
  i18n.setMessages("en", CATALOGUES.en);
  assert.equal(i18n.relative(10 * 60_000), "in 10 min");
  assert.equal(i18n.percent(1), "100%");
});

// -- the catalogues' web.* part ------------------------------------------------------
const placeholders = (text) => [...new Set([...String(text).matchAll(/\{([a-zA-Z_]\w*)\}/g)].map((m) => m[1]))].sort().join(",");

test("every web.* message is in all four languages, none empty, with the same placeholders", () => {
  const keys = Object.keys(CATALOGUES.en).filter((k) => k.startsWith("web."));
  assert.ok(keys.length > 200, keys.length);
  for (const lang of LANGS) {
    for (const key of keys) {
      const value = CATALOGUES[lang][key];
      assert.ok(value !== undefined, `${lang} lacks ${key}`);
      const forms = [value].flat();
      assert.equal(Array.isArray(value), Array.isArray(CATALOGUES.en[key]), `${lang} ${key}: plural or not`);
      const expected = placeholders([CATALOGUES.en[key]].flat()[1] ?? CATALOGUES.en[key]);
      forms.forEach((form, i) => {
        assert.ok(form && form.trim(), `${lang} ${key} is empty`);
        // a plural's "one" form may leave out the count {n} it is chosen by ("the card on it")
        const without = (list) => list.split(",").filter((p) => !(i === 0 && forms.length > 1 && p === "n")).join(",");
        assert.equal(without(placeholders(form)), without(expected), `${lang} ${key}: ${form}`);
      });
    }
  }
});

test("every key the pages name is in the catalogue", () => {
  const folder = new URL("../../../server/web/", import.meta.url);
  const missing = [];
  for (const file of readdirSync(folder).filter((f) => f.endsWith(".js"))) {
    const text = readFileSync(new URL(file, folder), "utf8");
    for (const m of text.matchAll(/\b(?:t|tr|tn|has)\(\s*"((?:web|card|reason|error)\.[A-Za-z0-9_.]+)"/g)) {
      if (!(m[1] in CATALOGUES.en) && !m[1].startsWith("card.") && !m[1].startsWith("reason.")) missing.push(`${file}: ${m[1]}`);
    }
    for (const m of text.matchAll(/\b(?:t|tr|tn)\(\s*`(web\.[A-Za-z0-9_.]*)\$\{/g)) {
      if (!Object.keys(CATALOGUES.en).some((k) => k.startsWith(m[1]))) missing.push(`${file}: ${m[1]}…`);
    }
    for (const m of text.matchAll(/data-i18n="(web\.[A-Za-z0-9_.]+)"/g)) if (!(m[1] in CATALOGUES.en)) missing.push(`${file}: ${m[1]}`);
  }
  const html = readFileSync(new URL("index.html", folder), "utf8");
  for (const m of html.matchAll(/data-i18n="([^"]+)"/g)) if (!(m[1] in CATALOGUES.en)) missing.push(`index.html: ${m[1]}`);
  assert.deepEqual(missing, []);
});

test("each country's own words", () => {
  const all = (lang) => Object.entries(CATALOGUES[lang]).filter(([k]) => k.startsWith("web.")).map(([, v]) => [v].flat().join(" ")).join("\n");
  const br = all("pt-BR");
  const pt = all("pt-PT");
  const es = all("es");
  assert.match(pt, /lacuna/);
  assert.match(pt, /baralh/);
  assert.doesNotMatch(pt, /embaralh|usuário|\btela\b/);
  assert.match(br, /embaralh/);
  assert.match(br, /fileira/);
  assert.match(br, /lacuna/);
  assert.doesNotMatch(br, /\becrã|utilizador|\bbaralh(?:ar|ad|e|amento)/); // "baralho" (the deck) is both
  assert.match(es, /hueco/);
  assert.match(es, /redistribuci/);
  assert.match(es, /\bpalo/);
});
