// /rules/gaps and /rules/klondike: the rules of Klondike (RULES-KLONDIKE.md), and of Gaps and of its family variants (RULES-GAPS.md v1.4), each
// variant with a worked example from the contract's vectors (rulesexamples.js), replayed
// in the page by the engine the verifier uses, so the boards shown are what the rules give.

import { dealAces, gapsBoard } from "./boards.js";
import { label } from "./cards.js";
import { fill, h } from "./dom.js";
import { hexToBytes } from "./drbg.js";
import { GAP, GAPS, GapsState, VARIANTS, parseGrid, parseOptions, variantOf } from "./gaps.js";
import { cellName } from "./actionwords.js";
import { EXAMPLES } from "./rulesexamples.js";
import { orList, t, tn } from "./i18n.js";

/** The list items of a section: the catalogue's keys `${prefix}.1`, `.2`, ... */
const items = (prefix, count) => h("ul", Array.from({ length: count }, (_, i) => h("li", t(`${prefix}.${i + 1}`))));

export async function rulesPage(main, game = "gaps") {
  if (game === "klondike") return klondikePage(main);
  fill(main, h("h1", t("web.rules.gaps.title")), h("p.muted", t("web.rules.loading")));
  const sections = await Promise.all([montana(), addiction(), freeParking()]);
  fill(main, h("article.rules",
    h("h1", t("web.rules.gaps.title")),
    h("p.lead", t("web.rules.gaps.lead")),
    h("nav.rules-toc", h("a", { href: "#gaps" }, t("web.variant.gaps.title")), " · ", h("a", { href: "#montana" }, t("web.variant.montana.title")), " · ",
      h("a", { href: "#addiction" }, t("web.variant.addiction.title")), " · ", h("a", { href: "#free_parking" }, t("web.variant.free_parking.title")),
      " · ", h("a", { href: "/rules/klondike", "data-nav": "" }, t("web.rules.klondike.title"))),
    plain(), variantsTable(), ...sections, notOffered()));
  if (location.hash) {
    const target = document.getElementById(location.hash.slice(1));
    if (target) target.scrollIntoView();
  }
}

function plain() {
  return h("section#gaps.rule", h("h2", t("web.variant.gaps.title")), items("web.rules.gaps.plain", 7),
    h("p.example", h("strong", t("web.rules.example")), " ", t("web.rules.gaps.plain_example")));
}

function variantsTable() {
  const rows = ["gaps", "montana", "addiction", "free_parking"].map((v) => [
    t(`web.variant.${v}.title`), t(v === "montana" ? "web.rules.table.deal_montana" : "web.rules.table.as_above"),
    v === "free_parking" ? t("web.rules.table.takes_right") : "–",
    t(v === "addiction" ? "web.rules.table.gaps_aces" : "web.rules.table.gaps_runs"), v === "addiction" ? "3" : "2"]);
  const heads = ["variant", "deal", "takes", "redeal_gaps", "redeals"].map((k) => t(`web.rules.table.${k}`));
  return h("section.rule.variants-table", h("h2", t("web.rules.table.title")),
    h("table", h("thead", h("tr", heads.map((x) => h("th", x)))),
      h("tbody", rows.map((r) => h("tr", r.map((x) => h("td", x)))))));
}

/** A worked example: before and after, side by side, each with its caption. */
function example(text, before, after) {
  return h("div.example", h("p", h("strong", t("web.rules.example_vectors")), " ", text),
    h("div.example-boards", h("figure", before.board, h("figcaption", before.caption)), h("figure", after.board, h("figcaption", after.caption))));
}

async function dealOf(ex) {
  return GAPS.newGame(hexToBytes(ex.seed), parseOptions(ex.options), { playerId: 1 });
}

async function montana() {
  const ex = EXAMPLES.montana;
  const state = await dealOf(ex);
  const after = await state.apply(ex.move);
  const v = VARIANTS.montana;
  return h(`section#${v.name}.rule`, h("h2", t("web.variant.montana.title")),
    h("p", t("web.rules.montana.lead")), items("web.rules.montana", 4),
    example(t("web.rules.montana.example", { seed: `${ex.seed.slice(0, 8)}…`, cell: cellName(ex.move.to), left: label(state.view().grid[ex.move.to[0]][ex.move.to[1] - 1]), card: label(ex.move.card) }),
      { board: gapsBoard(state.view(), { options: ex.options }), caption: t("web.rules.caption.deal") },
      { board: gapsBoard(after.view(), { options: ex.options, highlight: [ex.move.card] }), caption: t("web.rules.caption.after", { card: label(ex.move.card), cell: cellName(ex.move.to) }) }));
}

async function addiction() {
  const ex = EXAMPLES.addiction;
  const options = parseOptions(ex.options);
  const blocked = new GapsState({ seed: hexToBytes(ex.seed), playerId: ex.playerId, redeals: options.redeals, grid: parseGrid(ex.blocked), variant: variantOf(options) });
  const after = await blocked.apply({ kind: "redeal" });
  const perRow = [0, 1, 2, 3].map((r) => after.grid.slice(r * 13, r * 13 + 13).filter((c) => c === GAP).length);
  return h("section#addiction.rule", h("h2", t("web.variant.addiction.title")),
    h("p", t("web.rules.addiction.lead")), items("web.rules.addiction", 3),
    example(t("web.rules.addiction.example", { player: ex.playerId, seed: `${ex.seed.slice(0, 8)}…`, counts: perRow.join(", ") }),
      { board: gapsBoard(blocked.view(), { options }), caption: t("web.rules.caption.blocked") },
      { board: gapsBoard(after.view(), { options, aces: dealAces(after, true) }), caption: t("web.rules.caption.aces") }));
}

async function freeParking() {
  const ex = EXAMPLES.free_parking;
  const state = await dealOf(ex);
  const after = await state.apply(ex.move);
  const [r, c] = ex.move.to;
  const row = state.view().grid[r];
  const takes = state.view().legal.filter((m) => m.to[0] === r && m.to[1] === c).map((m) => label(m.card));
  return h("section#free_parking.rule", h("h2", t("web.variant.free_parking.title")),
    h("p", t("web.rules.free_parking.lead")), items("web.rules.free_parking", 5),
    example(t("web.rules.free_parking.example", { seed: `${ex.seed.slice(0, 8)}…`, cell: cellName(ex.move.to), left: label(row[c - 1]), right: label(row[c + 1]), cards: orList(takes), card: label(ex.move.card) }),
      { board: gapsBoard(state.view(), { options: ex.options }), caption: t("web.rules.caption.two_ways") },
      { board: gapsBoard(after.view(), { options: ex.options, highlight: [ex.move.card] }), caption: t("web.rules.caption.after", { card: label(ex.move.card), cell: cellName(ex.move.to) }) }));
}

function notOffered() {
  return h("section#names.rule", h("h2", t("web.rules.names.title")), items("web.rules.names", 2));
}

// -- Klondike (RULES-KLONDIKE.md) -------------------------------------------------------
function klondikePage(main) {
  const score = [["waste_column", "+5"], ["waste_foundation", "+10"], ["column_foundation", "+10"], ["turned", "+5"], ["foundation_column", "−15"], ["recycle", "−100"]];
  fill(main, h("article.rules.rules-klondike",
    h("h1", t("web.rules.klondike.title")),
    h("p.lead", t("web.rules.klondike.lead"), " ", h("a", { href: "/rules/gaps", "data-nav": "" }, t("web.rules.gaps.title"))),
    h("section#table.rule", h("h2", t("web.rules.klondike.table.title")), items("web.rules.klondike.table", 4)),
    h("section#actions.rule", h("h2", t("web.rules.klondike.actions.title")), items("web.rules.klondike.actions", 8)),
    h("section#end.rule", h("h2", t("web.rules.klondike.end.title")), items("web.rules.klondike.end", 2)),
    h("section#no-moves.rule", h("h2", t("web.rules.klondike.nomoves.title")), h("p", t("web.rules.klondike.nomoves.text")),
      h("p", t("web.rules.klondike.hint.text"))),
    h("section#score.rule", h("h2", t("web.rules.klondike.score.title")),
      h("table", h("thead", h("tr", h("th", t("web.rules.klondike.score.event")), h("th", t("web.rules.klondike.score.points")))),
        h("tbody", score.map(([k, pts]) => h("tr", h("td", t(`web.rules.klondike.score.${k}`)), h("td.num", pts))))),
      h("p", t("web.rules.klondike.score.text"))),
    h("section#options.rule", h("h2", t("web.rules.klondike.options.title")), items("web.rules.klondike.options", 3)),
    h("section#guaranteed.rule", h("h2", t("web.rules.klondike.guaranteed.title")), h("p", t("web.rules.klondike.guaranteed.text"))),
    h("section#hidden.rule", h("h2", t("web.rules.klondike.hidden.title")), h("p", t("web.rules.klondike.hidden.text")))));
  void tn;
}
